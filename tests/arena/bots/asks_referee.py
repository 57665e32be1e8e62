#!/usr/bin/env python3
"""Reads each decision's match from the referee at the address given as its argument (it
exits when nothing answers there), then plays the first legal action."""

import json
import sys
import urllib.request

base = sys.argv[1]
for line in sys.stdin:
    decision = json.loads(line)
    with urllib.request.urlopen(f"{base}/v1/matches/{decision['match_id']}", timeout=5) as answer:
        assert json.load(answer)["match_id"] == decision["match_id"]
    print(json.dumps({"action": decision["legal_actions"][0]}), flush=True)
