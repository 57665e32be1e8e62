#!/usr/bin/env python3
"""Answers every decision with its first legal action, echoing the decision's number unless
told ``plain``, then writes the same answer again, after the seconds given as its first
argument (none: at once)."""

import json
import sys
import time

pause = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
echo = "plain" not in sys.argv[2:]
for line in sys.stdin:
    decision = json.loads(line)
    answer = {"action": decision["legal_actions"][0]}
    if echo:
        answer["decision"] = decision["decision"]
    print(json.dumps(answer), flush=True)
    time.sleep(pause)
    print(json.dumps(answer), flush=True)
