#!/bin/sh
# Reads one decision, complains and exits.
read -r line
echo "out of cheese" >&2
exit 3
