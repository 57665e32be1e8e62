#!/bin/sh
# Reads each decision and never answers: it sleeps past every deadline.
while read -r line; do
  sleep 60
done
