#!/bin/sh
# Answers with well-formed JSON naming an action no game has.
while read -r line; do
  echo '{"action": {"type": "take_all_the_gold"}}'
done
