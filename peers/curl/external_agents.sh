#!/usr/bin/env bash
# Drives an external_agents agent server with plain curl, as a third-party peer.
# Prints one line per request: name <TAB> status <TAB> body (the body on one line).
#
#   external_agents.sh BASE flows            create / attach / reject / bad inputs / callbacks
#   external_agents.sh BASE create AGENT ID  one create
#   external_agents.sh BASE callback ID      the Markdown callback (a heredoc body)
set -euo pipefail
base="$1"
mode="$2"

req() {
  local name="$1"
  shift
  local out
  out=$(curl -sS -o - -w '\n%{http_code}' "$@")
  local status="${out##*$'\n'}"
  local body="${out%$'\n'*}"
  printf '%s\t%s\t%s\n' "$name" "$status" "${body//$'\n'/ }"
}

create() {
  req "$1" -X POST "$base/api/plugins/sessions/operations/create" \
    -H 'content-type: application/json' --data-binary "$2"
}

markdown_callback() {
  # The document's own example: a raw Markdown body from a heredoc, no Content-Type set
  # (curl then sends application/x-www-form-urlencoded; the server reads the raw text).
  req "$1" -X POST "$base/external/sessions/$2/messages" --data-binary @- <<'MSG'
Here is a *Markdown* reply.

- One
- Two
MSG
}

case "$mode" in
flows)
  create created '{"agentId":"ext-a","sessionId":"EXTERNAL-123"}'
  create attach '{"agentId":"ext-a","sessionId":"  EXTERNAL-123 "}'
  create cross_agent '{"agentId":"chat-b","sessionId":"EXTERNAL-123"}'
  create unknown_agent '{"agentId":"nobody","sessionId":"OTHER-1"}'
  create bad_session_id '{"agentId":"ext-a","sessionId":"bad id!"}'
  create long_session_id "{\"agentId\":\"ext-a\",\"sessionId\":\"$(printf 'x%.0s' {1..129})\"}"
  create bad_json '{"agentId":'
  create missing_agent '{"sessionId":"EXTERNAL-123"}'
  markdown_callback callback EXTERNAL-123
  req unknown_session -X POST "$base/external/sessions/NOPE-1/messages" --data-binary 'hello'
  req bad_path_id -X POST "$base/external/sessions/bad.id/messages" --data-binary 'hello'
  req bad_path_encoding -X POST "$base/external/sessions/%ff/messages" --data-binary 'hello'
  req not_utf8 -X POST "$base/external/sessions/EXTERNAL-123/messages" --data-binary $'caf\xe9 \xff'
  req blank_callback -X POST "$base/external/sessions/EXTERNAL-123/messages" --data-binary '   '
  ;;
create)
  create create "{\"agentId\":\"$3\",\"sessionId\":\"$4\"}"
  ;;
callback)
  markdown_callback callback "$3"
  ;;
*)
  echo "unknown mode $mode" >&2
  exit 2
  ;;
esac
