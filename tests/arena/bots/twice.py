#!/usr/bin/env python3
"""Answers every decision with its first legal action, and then writes the same answer again."""

import json
import sys

for line in sys.stdin:
    answer = json.dumps({"action": json.loads(line)["legal_actions"][0]})
    print(answer, flush=True)
    print(answer, flush=True)
