wrk.method = "POST"
wrk.body = '{"name":"Rex","tag":"dog","status":"available"}'
wrk.headers["Content-Type"] = "application/json"
