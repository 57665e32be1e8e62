// The Game as a boardgame.io game, checking what the referee's The Game checks on a move
// (service/games/the_game: the card is an integer in the mover's hand, the pile exists, the
// card fits the pile: higher on an ascending pile, lower on a descending one, or exactly 10
// the other way; a turn ends only after the minimum of cards; the match ends when the player
// to act cannot lay the minimum, or when every card is laid), with the seat's view of the
// state (other hands and the draw pile hidden). Solo and multi-seat, numbers as in
// seeds/the-game/cards.json.
"use strict";
const { INVALID_MOVE } = require("boardgame.io/core");

const LOWEST = 2;
const HIGHEST = 99;
const STEP = 10;
const HAND_SIZE = { 1: 8, 2: 7, 3: 6, 4: 6, 5: 6 };
const MINIMUM = 2;
const MINIMUM_WITHOUT_DRAW_PILE = 1;

function fits(pile, card) {
  return pile.up ? card > pile.top || card === pile.top - STEP : card < pile.top || card === pile.top + STEP;
}

function minimum(G) {
  return G.deck.length ? MINIMUM : MINIMUM_WITHOUT_DRAW_PILE;
}

// Whether some order of laying `count` cards of `hand` is legal (the referee's piles.can_lay).
function canLay(hand, piles, count) {
  if (count <= 0) return true;
  for (let i = 0; i < hand.length; i++) {
    for (let p = 0; p < piles.length; p++) {
      if (fits(piles[p], hand[i])) {
        const rest = hand.slice(0, i).concat(hand.slice(i + 1));
        const moved = piles.map((pile, q) => (q === p ? { up: pile.up, top: hand[i] } : pile));
        if (canLay(rest, moved, count - 1)) return true;
      }
    }
  }
  return false;
}

const TheGame = {
  name: "the-game",
  minPlayers: 1,
  maxPlayers: 5,

  setup: ({ ctx, random }) => {
    const deck = random.Shuffle(Array.from({ length: HIGHEST - LOWEST + 1 }, (_, i) => LOWEST + i));
    const size = HAND_SIZE[ctx.numPlayers];
    const hands = {};
    for (let seat = 0; seat < ctx.numPlayers; seat++) {
      hands[String(seat)] = deck.splice(0, size).sort((a, b) => a - b);
    }
    return {
      deck,
      hands,
      handSize: size,
      piles: [
        { up: true, top: 1 },
        { up: true, top: 1 },
        { up: false, top: 100 },
        { up: false, top: 100 },
      ],
      played: 0,
    };
  },

  moves: {
    play: {
      move: ({ G, playerID }, card, pile) => {
        const hand = G.hands[playerID];
        if (!Number.isInteger(card) || !Number.isInteger(pile) || pile < 0 || pile >= G.piles.length) {
          return INVALID_MOVE;
        }
        const at = hand.indexOf(card);
        if (at < 0 || !fits(G.piles[pile], card)) return INVALID_MOVE;
        hand.splice(at, 1);
        G.piles[pile].top = card;
        G.played += 1;
      },
      client: false,
    },
    endTurn: {
      move: ({ G, playerID, events }) => {
        if (G.played < minimum(G)) return INVALID_MOVE;
        const hand = G.hands[playerID];
        while (hand.length < G.handSize && G.deck.length) hand.push(G.deck.pop());
        hand.sort((a, b) => a - b);
        G.played = 0;
        events.endTurn();
      },
      client: false,
    },
  },

  endIf: ({ G, ctx }) => {
    const seats = Object.keys(G.hands);
    if (!G.deck.length && seats.every((seat) => !G.hands[seat].length)) return { won: true };
    const hand = G.hands[ctx.currentPlayer];
    const owed = Math.min(minimum(G) - G.played, hand.length);
    if (owed > 0 && !canLay(hand, G.piles, owed)) return { won: false };
  },

  playerView: ({ G, playerID }) => ({
    piles: G.piles,
    played: G.played,
    deckSize: G.deck.length,
    hand: playerID == null ? null : G.hands[playerID],
    handSizes: Object.fromEntries(Object.entries(G.hands).map(([seat, hand]) => [seat, hand.length])),
  }),
};

module.exports = { TheGame, fits };
