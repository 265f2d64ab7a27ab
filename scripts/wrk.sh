# Sourced by the benchmarks that load a server with wrk, a load generator in C that takes
# a fraction of `coffer bench-payments`' CPU, so that more of the two cores serve: its
# installation, a token, a Lua script that GETs paths in turn or POSTs a body, and a
# summary of its output.

command -v wrk >/dev/null || apt-get install -y -qq wrk >&2 || { apt-get update -qq && apt-get install -y -qq wrk; } >&2

wrk_token() { # $1: a file with client_id and client_secret, $2: the token endpoint
    python3 - "$1" "$2" <<'PY'
import json, sys, urllib.parse, urllib.request
c = json.load(open(sys.argv[1]))
form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": c["client_id"], "client_secret": c["client_secret"]})
print(json.load(urllib.request.urlopen(sys.argv[2], form.encode()))["access_token"])
PY
}

# $1: where to write it. With WRK_PATHS (a file of paths), each thread GETs them in turn,
# the second from half-way down the list, so the scripts' two threads read distinct
# payments; with WRK_BODY, every request POSTs that body to /search/payments. With
# WRK_PACE_MS, each connection waits that long before each request, as a client that is not
# trying to use the whole machine (wrk measures each answer from its request's sending).
wrk_lua() {
    cat >"$1" <<'LUA'
local paths, body = {}, os.getenv("WRK_BODY")
if not body then
  local file = assert(os.getenv("WRK_PATHS"), "WRK_PATHS or WRK_BODY")
  for line in io.lines(file) do paths[#paths + 1] = line end
  assert(#paths > 0, "no paths to read")
end
local threads = 0
function setup(thread) thread:set("offset", threads * math.floor(#paths / 2)); threads = threads + 1 end
-- A table of headers given to wrk.format would replace those of -H (the token).
function init(args) if body then wrk.headers["Content-Type"] = "application/json" end end
local pace = tonumber(os.getenv("WRK_PACE_MS") or "") or 0
if pace > 0 then function delay() return pace end end
local i = 0
function request()
  if body then return wrk.format("POST", "/search/payments", nil, body) end
  i = i + 1
  return wrk.format("GET", paths[(i + offset) % #paths + 1])
end
LUA
}

# wrk's own timeout is 2 s, and an answer slower than that is left out of its latencies:
# every script passes this instead, and an answer slower still counts as an error.
WRK_TIMEOUT=60s

# Whether wrk's output in file $1 shows an answer other than 2xx or a socket error
# (a timeout included).
wrk_failed() {
    grep -qE "Non-2xx|Socket errors" "$1"
}

# {per_s, p50_ms, p99_ms, not_2xx, socket_errors} of wrk's output (run with --latency) in
# file $1.
wrk_summary() {
    python3 - "$1" <<'PY'
import json, re, sys
out = open(sys.argv[1]).read()
def ms(text):
    value, unit = re.match(r"([\d.]+)(us|ms|s|m)", text).groups()
    return round(float(value) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit], 2)
latency = dict(re.findall(r"^\s+(50|99)%\s+(\S+)", out, re.M))
refused = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
print(json.dumps({"per_s": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
                  "p50_ms": ms(latency["50"]) if "50" in latency else None,
                  "p99_ms": ms(latency["99"]) if "99" in latency else None,
                  "not_2xx": int(refused.group(1)) if refused else 0,
                  "socket_errors": sum(map(int, errors.groups())) if errors else 0}))
PY
}
