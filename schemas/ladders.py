"""Ladders: the bodies of ``/v1/ladders…``."""

from marshmallow import Schema, fields, validate

from schemas.matches import ClockRequestSchema


class CreateLadderSchema(Schema):
    """A new ladder (operators only)."""

    id = fields.String(
        required=True,
        validate=validate.Length(min=2, max=40),
        metadata={"description": "2–40 characters of `a-z`, `0-9` and `-`.", "example": "viaggio-duel"},
    )
    game = fields.String(required=True, metadata={"example": "viaggio-al-centro-della-terra"})
    players = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=16))
    options = fields.Dict(keys=fields.String(), load_default=dict, metadata={"description": "The game's options."})
    time_control = fields.Nested(
        ClockRequestSchema,
        required=True,
        metadata={"description": "Every ladder match is timed; `on_timeout` is the ladder's timeout policy."},
    )
    max_concurrent = fields.Integer(
        strict=True,
        validate=validate.Range(min=1, max=64),
        metadata={"description": "Matches one bot plays at once (1)."},
    )
    provisional_games = fields.Integer(
        strict=True,
        validate=validate.Range(min=0, max=1000),
        metadata={"description": "Games a rating stays provisional (10)."},
    )
    same_owner = fields.Boolean(metadata={"description": "Whether two bots of one owner may meet (false)."})
    fault_threshold = fields.Integer(
        strict=True,
        validate=validate.Range(min=1, max=1000),
        metadata={"description": "Faulty matches among the last `fault_window` that suspend a bot (3)."},
    )
    fault_window = fields.Integer(
        strict=True, validate=validate.Range(min=1, max=50), metadata={"description": "Matches looked back at (10)."}
    )
    cool_down_s = fields.Integer(
        strict=True,
        validate=validate.Range(min=0, max=30 * 86400),
        metadata={"description": "Seconds before a suspended bot may rejoin (600)."},
    )
    house = fields.List(
        fields.String(),
        load_default=list,
        validate=validate.Length(max=8),
        metadata={
            "description": "House bots (`random`, `heuristic`, …) that are permanent members.",
            "example": ["random"],
        },
    )


class LadderSchema(Schema):
    """A ladder's settings and how busy it is."""

    id = fields.String(required=True)
    game = fields.String(required=True)
    players = fields.Integer(required=True)
    options = fields.Dict(required=True)
    time_control = fields.Dict(required=True)
    max_concurrent = fields.Integer(required=True)
    provisional_games = fields.Integer(required=True)
    same_owner = fields.Boolean(required=True)
    fault_threshold = fields.Integer(required=True)
    fault_window = fields.Integer(required=True)
    cool_down_s = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["open", "paused", "closed"]))
    created = fields.String(required=True)
    members = fields.Integer(required=True)
    live_matches = fields.Integer(required=True)


class LadderListSchema(Schema):
    ladders = fields.List(fields.Nested(LadderSchema), required=True)


class HouseMemberSchema(Schema):
    bot = fields.String(required=True, metadata={"example": "heuristic"})


class MembershipSchema(Schema):
    """A bot's membership of a ladder."""

    ladder = fields.String(required=True)
    bot = fields.String(required=True)
    active = fields.Boolean(required=True, metadata={"description": "False once it left."})
    validated = fields.Boolean(required=True, metadata={"description": "Whether it passed its validation match."})
    suspended = fields.String(allow_none=True, required=True, metadata={"description": "Why it is suspended."})
    playing = fields.List(
        fields.Dict(),
        required=True,
        metadata={"description": "Its matches in progress: they play on by their clocks whether it stays or leaves."},
    )


class LeaderboardRowSchema(Schema):
    rank = fields.Integer(required=True)
    bot = fields.String(required=True)
    house = fields.Boolean(required=True)
    active = fields.Boolean(required=True)
    rating = fields.Float(metadata={"description": "μ − 3σ, the order of the table (competitive games)."})
    mu = fields.Float()
    sigma = fields.Float()
    mean_score = fields.Float(metadata={"description": "Cooperative games: the bot's mean score, the order."})
    interval = fields.List(fields.Float(), metadata={"description": "The mean score's 95% confidence interval."})
    games = fields.Integer(required=True)
    wins = fields.Integer(required=True)
    faults = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    last_match = fields.String(allow_none=True, required=True)
    last_played = fields.String(allow_none=True, required=True)
    provisional = fields.Boolean(required=True)
    validated = fields.Boolean(required=True)
    suspended = fields.String(allow_none=True, required=True)
    playing = fields.Integer(required=True)


class LeaderboardSchema(Schema):
    ladder = fields.String(required=True)
    game = fields.String(required=True)
    ranked_by = fields.String(required=True, validate=validate.OneOf(["rating", "mean_score"]))
    rows = fields.List(fields.Nested(LeaderboardRowSchema), required=True)


class LadderMatchesQuerySchema(Schema):
    bot = fields.String(validate=validate.Length(max=64), metadata={"description": "Only this bot's matches."})
    cursor = fields.String(validate=validate.Regexp(r"^[0-9]{1,6}$"), metadata={"description": "`next_cursor`."})


class LadderMatchSchema(Schema):
    match_id = fields.String(required=True)
    started = fields.String(required=True)
    finished = fields.String(required=True)
    bots = fields.List(fields.String(), required=True, metadata={"description": "By seat."})
    ranks = fields.List(fields.Integer(), required=True)
    scores = fields.List(fields.Integer(), required=True)
    faults = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    validation = fields.Boolean(required=True)
    watch_url = fields.String(required=True)
    replay_url = fields.String(required=True)


class LadderMatchesSchema(Schema):
    matches = fields.List(fields.Nested(LadderMatchSchema), required=True)
    live = fields.List(
        fields.Dict(), required=True, metadata={"description": "Matches being played, with watch links."}
    )
    next_cursor = fields.String(allow_none=True, required=True)
