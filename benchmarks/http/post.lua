-- wrk script of the HTTP sidecar benchmark (benchmarks/README.md, "HTTP
-- sidecar (numen serve)"): every request is the same POST with basic
-- authentication. A digest signature may be used once only (the server
-- refuses a replay within its 30 s window, since issue 30), and wrk's Lua
-- has no HMAC to sign each request: run.sh checks a digest-signed request
-- with curl, and wrk sends the key and secret (loopback only).
local function need(name)
  local v = os.getenv(name)
  if v == nil or v == "" then
    error("post.lua: environment variable " .. name .. " is not set")
  end
  return v
end

wrk.method = "POST"
wrk.body = need("BENCH_BODY")
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = need("BENCH_AUTH")
