#!/usr/bin/env python3
"""Plays the first legal action, except when several seats owe a decision at once: then, with
the argument ``crash`` it exits, and with ``think`` it thinks far longer than any test waits."""

import json
import sys
import time

mode = sys.argv[1]
for line in sys.stdin:
    decision = json.loads(line)
    if len(decision["to_act"]) > 1:
        if mode == "crash":
            sys.exit(3)
        time.sleep(60)
    print(json.dumps({"action": decision["legal_actions"][0]}), flush=True)
