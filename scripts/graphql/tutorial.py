# What the two GraphQL servers of scripts/test-graphql-servers share, none of it GraphQL: the
# launches (generated, deterministic), the Apollo fullstack tutorial's paginateResults and its
# `launches` resolver ported line by line, the knobs each scenario turns, and an ASGI wrapper
# around the real server's app (Strawberry's or Ariadne's) that keeps the request log, answers
# /admin/knobs, and does what a proxy or a gateway in front of a GraphQL server does (503s, 403s,
# the other status of a validation error). The GraphQL answers themselves, field errors and
# their paths, validation errors, null propagation, are the framework's own.
import base64
import json
import threading
import time

SITES = ("CCAFS SLC 40", "KSC LC 39A", "VAFB SLC 4E", "Kwajalein Atoll")
WORDS = ("Amos", "Crew", "CRS", "GPS", "Starlink", "Sentinel", "Iridium", "Telstar", "Dragon", "Zuma", "Nusantara")
ROCKETS = (("falcon1", "Falcon 1", "Merlin A"), ("falcon9", "Falcon 9", "FT"), ("falconheavy", "Falcon Heavy", "FH"))
FIRST_DATE = 1143239400  # Falcon 1's first launch, as the hosted data's first cursor
# Pairs of launches (by id) that share a date: side by side, as in the hosted data. Neither
# ends a page of 20, so the default crawl is not disturbed (the later of a pair ending a page
# makes the next page start one launch early: one duplicate, no loop).
SAME_DATE = ((60, 59), (24, 23))
IMAGES = 110  # distinct patches on the image server; more launches share them


def has_patch(lid):
    return lid % 11 != 0  # 10 of 110 have none


def patch_ext(lid):
    return "jpg" if lid % 4 == 0 else "png"


def patch_path(lid, size):
    """The image server's path of a launch's patch (SMALL or LARGE); None: no patch."""
    image = (lid - 1) % IMAGES + 1
    if not has_patch(image):
        return None
    return "/patch/%d-%s.%s" % (image, size.lower(), patch_ext(image))


def make_launches(count, image_base, shared_cursor=None):
    """Every launch, newest first (as the tutorial's resolver reverses getAllLaunches)."""
    dates = {lid: FIRST_DATE + 2592000 * lid for lid in range(1, count + 1)}
    for newer, older in SAME_DATE:
        if newer <= count:
            dates[older] = dates[newer]
    launches = []
    for lid in range(count, 0, -1):
        rocket = ROCKETS[lid % len(ROCKETS)] if lid > 5 else ROCKETS[0]
        small, large = patch_path(lid, "SMALL"), patch_path(lid, "LARGE")
        launches.append({
            "id": str(lid),
            "cursor": str(dates[lid]),
            "site": SITES[lid % len(SITES)],
            "mission": {
                "name": "%s-%d" % (WORDS[lid % len(WORDS)], lid),
                "missionPatchSmall": image_base + small if small else None,
                "missionPatchLarge": image_base + large if large else None,
            },
            "rocket": {"id": rocket[0], "name": rocket[1], "type": rocket[2]},
        })
    if shared_cursor:  # [i, j]: the launch at index j (newest first) gets the date of the one at i
        i, j = shared_cursor
        launches[j]["cursor"] = launches[i]["cursor"]
    return launches


def paginate_results(after, page_size, results, get_cursor=lambda item: None):
    """The tutorial's paginateResults (src/utils.js), line by line.

    page_size None is JavaScript's null (sent as null): `null < 1` is true there."""
    if page_size is None or page_size < 1:
        return []
    if not after:
        return results[:page_size]
    cursor_index = -1
    for index, item in enumerate(results):
        # if an item has a `cursor` on it, use that, otherwise try to generate one
        item_cursor = item["cursor"] if item.get("cursor") else get_cursor(item)
        # if there's still not a cursor, return false by default
        if item_cursor and after == item_cursor:
            cursor_index = index
            break
    if cursor_index >= 0:
        if cursor_index == len(results) - 1:  # don't let us overflow
            return []
        return results[cursor_index + 1:min(len(results), cursor_index + 1 + page_size)]
    return results[:page_size]


DEFAULT_KNOBS = {
    "launches": 110,            # how many launches
    "defaultPageSize": 20,      # the resolver's `pageSize = 20` default
    "maxPageSize": 20000,       # a pageSize above this is served as this many
    "sharedCursor": None,       # [i, j]: launch j (index, newest first) has launch i's date
    "patchErrors": [],          # launch ids whose missionPatch resolver throws
    "idErrors": [],             # launch ids whose id resolver throws (the launch becomes null)
    "removeField": None,        # "Rocket.type": serve a schema without it (queries asking it are invalid)
    "validationStatus": None,   # 400 or 200: the status a validation error is answered with (None: native)
    "guard": [],                # "Launch.isBooked", "Launch.rocket": UNAUTHENTICATED without the token
    "authToken": None,          # launches and launch(id) want `Authorization: Bearer <authToken>`
    "authStatus": None,         # the status of an answer with data null and UNAUTHENTICATED (401: as a
                                # gateway or Apollo's plugin may set it); None: the framework's own
    "emptyFrom": None,          # index: a page that would start there, or after an empty page's cursor,
                                # is empty with hasMore true and a cursor never seen
    "detailsFail": None,        # {"mod": 5, "times": 2, "retryAfter": 1, "status": 503}: launch(id:) of
                                # ids % mod == 0 answers `status` (503 unless said) the first `times`
                                # times (-1: always), as a proxy in front; retryAfter null: no header
    "list503After": None,       # index: launches(after:) with the cursor of the launch at that index
                                # (newest first) always answers 503 (no Retry-After): a page lost
    "latencyMs": 0,
}

_lock = threading.Lock()


class State:
    def __init__(self, image_base, log_path):
        self.image_base = image_base.rstrip("/")
        self.log_path = log_path
        self.knobs = dict(DEFAULT_KNOBS)
        self.attempts = {}
        self.launches = []
        self.by_id = {}
        self.set_knobs({})

    def set_knobs(self, knobs):
        unknown = set(knobs) - set(DEFAULT_KNOBS)
        if unknown:
            raise ValueError("unknown knobs: %s" % ", ".join(sorted(unknown)))
        merged = dict(DEFAULT_KNOBS)
        merged.update(knobs)
        with _lock:
            old = self.knobs
            self.knobs = merged
            self.attempts = {}
            if not self.launches or (old["launches"], old["sharedCursor"]) != (merged["launches"], merged["sharedCursor"]):
                self.launches = make_launches(merged["launches"], self.image_base, merged["sharedCursor"])
                self.by_id = {launch["id"]: launch for launch in self.launches}

    # -- the resolvers' logic, the same for both servers ----------------------------------------

    def authorized(self, headers):
        token = self.knobs["authToken"]
        return token is not None and headers.get("authorization", "") == "Bearer " + token

    def needs_auth(self):
        return self.knobs["authToken"] is not None

    def launches_page(self, page_size, after):
        """The tutorial's `Query.launches` resolver. page_size: an int, None (sent as null), or
        DEFAULT when the query left it out."""
        knobs = self.knobs
        if page_size is DEFAULT:
            page_size = knobs["defaultPageSize"]
        if page_size is not None:
            page_size = min(page_size, knobs["maxPageSize"])
        all_launches = self.launches
        empty_from = knobs["emptyFrom"]
        if empty_from is not None:
            start = 0
            if after:
                start = next((n + 1 for n, item in enumerate(all_launches) if item["cursor"] == after), None)
            if start is None or start >= empty_from:  # an empty page's cursor, or past emptyFrom
                return {"launches": [], "cursor": "%s~" % (after or "empty"), "hasMore": True}
        launches = paginate_results(after, page_size, all_launches)
        return {
            "launches": launches,
            "cursor": launches[-1]["cursor"] if launches else None,
            # if the cursor at the end of the paginated results is the same as the
            # last item in _all_ results, then there are no more results after this
            "hasMore": launches[-1]["cursor"] != all_launches[-1]["cursor"] if launches else False,
        }

    def launch(self, lid):
        return self.by_id.get(str(lid))

    @staticmethod
    def mission_patch(mission, size):
        # make sure the default size is 'large' in case user doesn't specify
        return mission["missionPatchSmall"] if size == "SMALL" else mission["missionPatchLarge"]

    def patch_fails(self, launch_id):
        return launch_id in [str(i) for i in self.knobs["patchErrors"]]

    def id_fails(self, launch_id):
        return launch_id in [str(i) for i in self.knobs["idErrors"]]

    def guarded(self, field, headers):
        return field in self.knobs["guard"] and not self.authorized(headers)

    @staticmethod
    def login_token(email):
        return base64.b64encode((email or "").encode()).decode()

    # -- the log --------------------------------------------------------------------------------

    def log(self, record):
        line = json.dumps(record, sort_keys=True) + "\n"
        with _lock:
            with open(self.log_path, "a") as f:
                f.write(line)


class _Default:
    def __repr__(self):
        return "DEFAULT"


DEFAULT = _Default()


def _header(scope, name):
    for key, value in scope.get("headers", []):
        if key.decode("latin-1").lower() == name:
            return value.decode("latin-1")
    return None


async def _read_body(receive):
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body


async def _json_response(send, status, payload, headers=()):
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
                + [(k.encode(), v.encode()) for k, v in headers]})
    await send({"type": "http.response.body", "body": body})


def wrap(state, graphql_app, framework):
    """The ASGI app uvicorn serves: /graphql through the real server's app, /admin/knobs."""

    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        path = scope["path"]
        if path == "/admin/knobs":
            if scope["method"] == "POST":
                try:
                    state.set_knobs(json.loads(await _read_body(receive) or b"{}"))
                except (ValueError, TypeError) as error:
                    return await _json_response(send, 400, {"error": str(error)})
            return await _json_response(send, 200, {"framework": framework, "knobs": state.knobs,
                                                    "launches": len(state.launches)})
        if path != "/graphql":
            return await _json_response(send, 404, {"error": "not found"})

        body = await _read_body(receive)
        try:
            request = json.loads(body) if body else {}
            if not isinstance(request, dict):
                request = {}
        except ValueError:
            request = {}
        query = request.get("query") or ""
        record = {"t": round(time.time(), 3), "method": scope["method"], "op": request.get("operationName"),
                  "vars": request.get("variables"), "auth": _header(scope, "authorization") is not None,
                  "isBooked": "isBooked" in query, "pageSizeArg": "pageSize" in query}
        knobs = state.knobs
        if knobs["latencyMs"]:
            import asyncio
            await asyncio.sleep(knobs["latencyMs"] / 1000)

        # 503 (or 403) from in front of the server, for launch(id:) (the details query)
        rule = knobs["detailsFail"]
        variables = request.get("variables") if isinstance(request.get("variables"), dict) else {}
        launch_id = variables.get("launchId", variables.get("id"))
        if rule and launch_id is not None and "launch(" in query.replace(" ", ""):
            try:
                numeric = int(launch_id)
            except (TypeError, ValueError):
                numeric = None
            if numeric is not None and numeric % rule.get("mod", 5) == 0:
                with _lock:
                    seen = state.attempts.get(str(launch_id), 0)
                    state.attempts[str(launch_id)] = seen + 1
                times = rule.get("times", 2)
                if times < 0 or seen < times:
                    extra = [("retry-after", str(rule["retryAfter"]))] if rule.get("retryAfter") is not None else []
                    status = rule.get("status", 503)
                    record.update(status=status, refused=str(status))
                    state.log(record)
                    return await _json_response(send, status, {"error": "refused by the proxy"}, extra)

        after_index = knobs["list503After"]
        if after_index is not None and "launches(" in query.replace(" ", "") and \
                state.launches[after_index]["cursor"] in (variables or {}).values():
            record.update(status=503, refused="503")
            state.log(record)
            return await _json_response(send, 503, {"error": "Service Unavailable"})

        replay = [body]

        async def receive_again():
            if replay:
                return {"type": "http.request", "body": replay.pop(), "more_body": False}
            return await receive()

        # The real server's answer, held so that its status can be told and, where a knob says
        # so, changed (validation errors: 400 <-> 200 with data null).
        start = {}
        chunks = []

        async def hold(message):
            if message["type"] == "http.response.start":
                start.update(message)
            else:
                chunks.append(message.get("body", b""))

        await graphql_app(dict(scope, path="/graphql"), receive_again, hold)
        status = start.get("status", 500)
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        payload = b"".join(chunks)
        try:
            answer = json.loads(payload)
        except ValueError:
            answer = None
        if isinstance(answer, dict):
            errors = answer.get("errors") or []
            record["errors"] = [{"message": e.get("message"), "path": e.get("path"),
                                 "code": (e.get("extensions") or {}).get("code")} for e in errors][:5]
            record["dataNull"] = answer.get("data") is None
            validation = errors and answer.get("data") is None and all(not e.get("path") for e in errors)
            unauthenticated = errors and answer.get("data") is None and any(
                (e.get("extensions") or {}).get("code") == "UNAUTHENTICATED" for e in errors)
            if validation and not unauthenticated and knobs["validationStatus"] in (200, 400):
                want = knobs["validationStatus"]
                if want != status:
                    record["rewritten"] = "%d->%d" % (status, want)
                    status = want
                    if want == 200 and "data" not in answer:  # as Strawberry answers one
                        answer = {"data": None, "errors": answer["errors"]}
                    elif want == 400:
                        answer = {"errors": answer["errors"]}  # as Apollo Server answers one
                    payload = json.dumps(answer).encode()
            if unauthenticated and knobs["authStatus"] and knobs["authStatus"] != status:
                record["rewritten"] = "%d->%d" % (status, knobs["authStatus"])
                status = knobs["authStatus"]
        record["status"] = status
        record["launches"] = _count_launches(answer)
        state.log(record)
        headers.append((b"content-length", str(len(payload)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": payload})

    return app


def _count_launches(answer):
    try:
        return len(answer["data"]["launches"]["launches"])
    except (TypeError, KeyError):
        return None


def serve(make_app, argv, framework):
    """`python SERVER.py --port N --image-base URL --log FILE [--knobs JSON]`: uvicorn serves
    make_app(image_base, log) -> (State, ASGI app)."""
    import argparse
    import uvicorn
    parser = argparse.ArgumentParser(description="the Apollo tutorial's schema served by " + framework)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--image-base", required=True)
    parser.add_argument("--log", required=True, help="request log, one JSON object a line")
    parser.add_argument("--knobs", default="{}", help="initial knobs (JSON); POST /admin/knobs changes them")
    args = parser.parse_args(argv)
    state, asgi = make_app(args.image_base, args.log)
    state.set_knobs(json.loads(args.knobs))
    uvicorn.run(asgi, host=args.host, port=args.port, log_level="warning", access_log=False,
                timeout_graceful_shutdown=2)
