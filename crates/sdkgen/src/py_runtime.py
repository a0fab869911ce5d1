class ApiError(Exception):
    """A response with a status outside 2xx, after any retries."""

    def __init__(self, status: int, body: Any, headers: dict[str, str]) -> None:
        text = body if isinstance(body, str) else json.dumps(body) if body is not None else ""
        super().__init__(f"HTTP {status}" + (": " + text[:200] if text else ""))
        self.status = status
        self.body = body
        self.headers = headers


_Param: TypeAlias = "tuple[str, Any, str | None, bool | None]"

_DEFAULT_TIMEOUT = 60.0
_DEFAULT_MAX_RETRIES = 2
_INITIAL_RETRY_DELAY = 0.5
_MAX_RETRY_DELAY = 8.0
_MAX_RETRY_AFTER = 60.0


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return str(value)


def _path(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(urllib.parse.quote(_scalar(item), safe="") for item in value)
    return urllib.parse.quote(_scalar(value), safe="")


def _append_query(pairs: list[tuple[str, str]], param: _Param) -> None:
    name, value, style, explode = param
    if value is None:
        return
    if style == "json":
        pairs.append((name, json.dumps(value, separators=(",", ":"))))
        return
    exploded = True if explode is None else explode
    if isinstance(value, (list, tuple)):
        items = [_scalar(item) for item in value]
        if style == "spaceDelimited":
            pairs.append((name, " ".join(items)))
        elif style == "pipeDelimited":
            pairs.append((name, "|".join(items)))
        elif exploded:
            pairs.extend((name, item) for item in items)
        else:
            pairs.append((name, ",".join(items)))
        return
    if isinstance(value, dict):
        entries = [(str(k), v) for k, v in value.items() if v is not None]
        if style == "deepObject":
            pairs.extend((f"{name}[{k}]", _scalar(v)) for k, v in entries)
        elif exploded:
            pairs.extend((k, _scalar(v)) for k, v in entries)
        else:
            pairs.append((name, ",".join(f"{k},{_scalar(v)}" for k, v in entries)))
        return
    pairs.append((name, _scalar(value)))


def _header_value(param: _Param) -> str:
    _, value, style, _ = param
    if style == "json":
        return json.dumps(value, separators=(",", ":"))
    if isinstance(value, (list, tuple)):
        return ",".join(_scalar(item) for item in value)
    return _scalar(value)


def _encode_body(kind: str, body: Any) -> tuple[bytes, str | None]:
    if kind == "json":
        return json.dumps(body).encode("utf-8"), None
    if kind == "form":
        pairs: list[tuple[str, str]] = []
        for key, value in dict(body).items():
            if value is None:
                continue
            for item in value if isinstance(value, list) else [value]:
                pairs.append((str(key), _scalar(item)))
        return urllib.parse.urlencode(pairs).encode("ascii"), "application/x-www-form-urlencoded"
    if kind == "multipart":
        boundary = "----sdk" + uuid.uuid4().hex
        chunks: list[bytes] = []
        for key, value in dict(body).items():
            if value is None:
                continue
            for item in value if isinstance(value, list) else [value]:
                disposition = f'form-data; name="{key}"'
                if isinstance(item, (bytes, bytearray)):
                    head = f'Content-Disposition: {disposition}; filename="{key}"\r\nContent-Type: application/octet-stream'
                    data = bytes(item)
                else:
                    head = f"Content-Disposition: {disposition}"
                    data = _scalar(item).encode("utf-8")
                chunks.append(f"--{boundary}\r\n{head}\r\n\r\n".encode("utf-8") + data + b"\r\n")
        chunks.append(f"--{boundary}--\r\n".encode("ascii"))
        return b"".join(chunks), f"multipart/form-data; boundary={boundary}"
    if kind == "binary":
        if isinstance(body, (bytes, bytearray)):
            return bytes(body), None
        return str(body).encode("utf-8"), None
    return _scalar(body).encode("utf-8"), None


def _decode(status: int, headers: dict[str, str], data: bytes) -> Any:
    if status in (204, 205) or not data:
        return None
    content_type = headers.get("content-type", "").lower()
    if "json" in content_type:
        try:
            return json.loads(data.decode("utf-8"))
        except ValueError:
            return data.decode("utf-8", "replace")
    if not content_type or content_type.startswith("text/") or any(t in content_type for t in ("xml", "html", "csv")):
        return data.decode("utf-8", "replace")
    return data


def retry_delay(attempt: int, retry_after: str | None) -> float:
    """Seconds to wait before retry number `attempt` (0-based)."""
    if retry_after is not None and retry_after.strip():
        try:
            return min(max(float(retry_after), 0.0), _MAX_RETRY_AFTER)
        except ValueError:
            pass
        try:
            when = email.utils.parsedate_to_datetime(retry_after)
        except (TypeError, ValueError, IndexError):
            when = None
        if when is not None:
            if when.tzinfo is None:
                when = when.replace(tzinfo=datetime.timezone.utc)
            delta = (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
            return min(max(delta, 0.0), _MAX_RETRY_AFTER)
    ceiling = min(_INITIAL_RETRY_DELAY * float(1 << min(attempt, 16)), _MAX_RETRY_DELAY)
    return ceiling / 2 + random.random() * ceiling / 2


def _retryable(status: int) -> bool:
    return status in (408, 429) or status >= 500


class _BaseClient:
    def __init__(
        self,
        base_url: str,
        credentials: dict[str, str | tuple[str, str] | None],
        timeout: float | None,
        max_retries: int | None,
        headers: dict[str, str] | None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._credentials = credentials
        self.timeout = _DEFAULT_TIMEOUT if timeout is None else timeout
        self.max_retries = _DEFAULT_MAX_RETRIES if max_retries is None else max_retries
        self.headers = dict(headers or {})

    def _choose_security(self, alternatives: list[list[str]]) -> list[str]:
        for alternative in alternatives:
            if alternative and all(self._credentials.get(key) is not None for key in alternative):
                return alternative
        return []

    def _request(
        self,
        method: str,
        path: str,
        *,
        query: list[_Param] | None = None,
        header_params: list[_Param] | None = None,
        cookie_params: list[_Param] | None = None,
        body: Any = None,
        body_kind: str | None = None,
        content_type: str | None = None,
        security: list[list[str]] | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
    ) -> Any:
        pairs: list[tuple[str, str]] = []
        for param in query or []:
            _append_query(pairs, param)
        headers: dict[str, str] = {"accept": "application/json, */*;q=0.8"}
        headers.update({name.lower(): value for name, value in self.headers.items()})
        cookies: list[str] = []
        for param in cookie_params or []:
            if param[1] is not None:
                cookies.append(f"{param[0]}={urllib.parse.quote(_header_value(param), safe='')}")
        for key in self._choose_security(security or []):
            scheme = _SCHEMES.get(key)
            credential = self._credentials.get(key)
            if scheme is None or credential is None:
                continue
            kind, location, name = scheme
            if kind == "basic":
                if isinstance(credential, tuple):
                    raw = f"{credential[0]}:{credential[1]}".encode("utf-8")
                    headers["authorization"] = "Basic " + base64.b64encode(raw).decode("ascii")
            elif isinstance(credential, str):
                if kind == "token":
                    headers["authorization"] = f"{location} {credential}"
                elif location == "header":
                    headers[name.lower()] = credential
                elif location == "query":
                    pairs.append((name, credential))
                else:
                    cookies.append(f"{name}={urllib.parse.quote(credential, safe='')}")
        for param in header_params or []:
            if param[1] is not None:
                headers[param[0].lower()] = _header_value(param)
        if cookies:
            headers["cookie"] = "; ".join(cookies)
        data: bytes | None = None
        if body_kind is not None and body is not None:
            data, encoded_type = _encode_body(body_kind, body)
            chosen_type = encoded_type or content_type
            if chosen_type is not None:
                headers["content-type"] = chosen_type
        url = self.base_url + path
        if pairs:
            url += ("&" if "?" in path else "?") + urllib.parse.urlencode(pairs)
        retries = self.max_retries if max_retries is None else max_retries
        attempt_timeout = self.timeout if timeout is None else timeout
        attempt = 0
        while True:
            request = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(request, timeout=attempt_timeout) as response:
                    status = int(response.status)
                    response_headers = {k.lower(): v for k, v in response.headers.items()}
                    payload = response.read()
            except urllib.error.HTTPError as error:
                status = int(error.code)
                response_headers = {k.lower(): v for k, v in error.headers.items()}
                payload = error.read()
            except OSError:  # URLError, timeouts and refused connections
                if attempt >= retries:
                    raise
                time.sleep(retry_delay(attempt, None))
                attempt += 1
                continue
            decoded = _decode(status, response_headers, payload)
            if 200 <= status < 300:
                return decoded
            if _retryable(status) and attempt < retries:
                time.sleep(retry_delay(attempt, response_headers.get("retry-after")))
                attempt += 1
                continue
            raise ApiError(status, decoded, response_headers)
