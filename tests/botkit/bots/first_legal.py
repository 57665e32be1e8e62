#!/usr/bin/env python3
"""Plays the first legal action of every decision, echoing its number, after thinking the
seconds given as its argument (none: at once)."""

import json
import sys
import time

pause = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
for line in sys.stdin:
    decision = json.loads(line)
    time.sleep(pause)
    print(json.dumps({"decision": decision["decision"], "action": decision["legal_actions"][0]}), flush=True)
