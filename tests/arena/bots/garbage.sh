#!/bin/sh
# Answers every decision with a line that is not JSON.
while read -r line; do
  echo "e2e4!"
done
