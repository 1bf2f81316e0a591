#!/bin/sh
# Checks a captured Plaza webhook request with openssl alone: the Standard Webhooks signature
# (webhook-signature: space-separated "v1,<base64 HMAC-SHA256 of id.timestamp.body>") and its age.
#
#   PLAZA_CLIENT_SECRET=whsec_... ./verify-webhook.sh <webhook-id> <webhook-timestamp> '<webhook-signature>' body.json
#
# body.json must hold the request body exactly as received (no reformatting, no added newline).
# Exit 0: signed with the secret and within TOLERANCE_SECONDS (default 300) of now. Exit 1: not signed
# with it (tampered, or another secret). Exit 2: signed, but older or newer than the tolerance (a replay,
# or a capture checked later: set TOLERANCE_SECONDS to judge it anyway). Exit 64: wrong usage.
# For support and debugging: a receiver should compare in constant time (see ../python-receiver).
set -eu

if [ $# -ne 4 ] || [ -z "${PLAZA_CLIENT_SECRET:-}" ]; then
  echo "usage: PLAZA_CLIENT_SECRET=whsec_... $0 <webhook-id> <webhook-timestamp> '<webhook-signature>' <body-file>" >&2
  exit 64
fi
id=$1
timestamp=$2
signatures=$3
body=$4
tolerance=${TOLERANCE_SECONDS:-300}

# The HMAC key is the base64 part of the secret after whsec_, decoded; openssl takes it as hex.
key_hex=$(printf '%s' "${PLAZA_CLIENT_SECRET#whsec_}" | openssl base64 -d -A | od -An -v -tx1 | tr -d ' \n')
expected=$({ printf '%s.%s.' "$id" "$timestamp"; cat "$body"; } | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$key_hex" -binary | openssl base64 -A)

verified=no
for entry in $signatures; do
  if [ "$entry" = "v1,$expected" ]; then verified=yes; fi
done
if [ "$verified" != yes ]; then
  echo "signature does not match: not signed with this secret, or the body or headers were changed" >&2
  exit 1
fi

case $timestamp in
  '' | *[!0-9]*)
    echo "webhook-timestamp is not a Unix time in seconds" >&2
    exit 1
    ;;
esac
age=$(($(date +%s) - timestamp))
if [ "$age" -gt "$tolerance" ] || [ "$age" -lt "-$tolerance" ]; then
  echo "signature verified, but signed $age s ago: outside the ${tolerance} s replay window" >&2
  exit 2
fi
echo "verified: signed by Plaza with this secret $age s ago"
