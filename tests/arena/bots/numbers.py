#!/usr/bin/env python3
"""Answers each decision with an action naming the decision's number, and echoes it."""

import json
import sys

for line in sys.stdin:
    number = json.loads(line)["decision"]
    print(json.dumps({"decision": number, "action": {"type": "numbered", "n": number}}), flush=True)
