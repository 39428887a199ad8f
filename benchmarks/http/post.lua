-- wrk script of the HTTP sidecar benchmark (benchmarks/README.md, "HTTP
-- sidecar (numen serve)"): every request is the same signed POST. wrk's Lua
-- has no HMAC, so run.sh signs the body for one timestamp right before each
-- run and passes the headers in the environment; a digest signature is
-- valid for 30 s, so a run must not last longer than about 20 s.
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
wrk.headers["X-Digest-Key"] = need("BENCH_KEY")
wrk.headers["X-Digest-Timestamp"] = need("BENCH_TS")
wrk.headers["X-Digest-Signature"] = need("BENCH_SIG")
