# The image server of scripts/test-graphql-servers: Python's http.server (SimpleHTTPRequestHandler,
# threaded) on a folder of images, each request logged as one JSON line: path, status, and
# whether it carried an Authorization header (a source's headers are for its feed only).
#
#   python3 scripts/graphql/static_server.py --port N --dir DIR --log FILE
import argparse
import functools
import http.server
import json
import threading

LOCK = threading.Lock()


class Handler(http.server.SimpleHTTPRequestHandler):
    log_path = None

    def log_request(self, code="-", size="-"):
        record = {"path": self.path, "status": int(getattr(code, "value", code)) if str(code).isdigit() or
                  hasattr(code, "value") else code, "auth": self.headers.get("Authorization") is not None}
        with LOCK, open(self.log_path, "a") as f:
            f.write(json.dumps(record) + "\n")

    def log_message(self, format, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    Handler.log_path = args.log
    handler = functools.partial(Handler, directory=args.dir)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
