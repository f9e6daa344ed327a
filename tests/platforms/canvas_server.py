"""A Canvas on 127.0.0.1 for tests, answering as Canvas's REST API documents it
(https://canvas.instructure.com/doc/api/: courses, assignments, submissions, users, sections;
a Bearer token; JSON; lists paged by Link headers, rel="next"), and failing as a test asks:
a refused token (401), a forbidden one (403), server errors (500) for the next N requests.
Never the network: the server listens on 127.0.0.1 only, on a port the system picks."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

TOKEN = "7~secret-token-never-shown"
COURSE, ASSIGNMENT = "5", "77"
SECTIONS = [{"id": 1, "name": "Section A"}, {"id": 2, "name": "Section B"}]
PAGE = 2  # items per page the server gives, whatever per_page asks: every list pages


class Canvas(BaseHTTPRequestHandler):
    """Answers as Canvas: Bearer token, JSON, Link headers; fails as the test says."""

    def do_GET(self):
        server = self.server
        url = urlsplit(self.path)
        with server.lock:
            server.asked.append((url.path, parse_qs(url.query)))
            failing = server.failures > 0
            server.failures -= 1
        if self.headers.get("Authorization") != f"Bearer {server.token}":
            return self.answer(401, {"errors": [{"message": "Invalid access token."}]},
                               {"WWW-Authenticate": 'Bearer realm="canvas-lms"'})
        if server.forbidden:
            return self.answer(403, {"status": "unauthorized", "errors": [
                {"message": "user not authorized to perform that action"}]})
        if failing:
            return self.answer(500, {"errors": [{"message": "An error occurred."}]})
        base = f"/api/v1/courses/{COURSE}"
        lists = {f"{base}/sections": SECTIONS, f"{base}/search_users": server.users,
                 f"{base}/assignments/{ASSIGNMENT}/submissions": server.submissions}
        if url.path == base:
            return self.answer(200, {"id": int(COURSE), "name": "Patience 101"})
        if url.path == f"{base}/assignments/{ASSIGNMENT}":
            return self.answer(200, {"id": int(ASSIGNMENT), "course_id": int(COURSE),
                                     **server.assignment})
        if url.path in lists:
            return self.page(url, lists[url.path])
        return self.answer(404, {"errors": [{"message": "The specified resource does not exist."}]})

    def page(self, url, items):
        query = parse_qs(url.query)
        number = int(query.pop("page", ["1"])[0])
        chunk = items[(number - 1) * PAGE:number * PAGE]
        headers = {}
        if number * PAGE < len(items):
            rest = "&".join(f"{k}={v}" for k, values in query.items() for v in values)
            origin = f"http://127.0.0.1:{self.server.server_address[1]}"
            headers["Link"] = f'<{origin}{url.path}?{rest}&page={number + 1}>; rel="next"'
        return self.answer(200, chunk, headers)

    def answer(self, status, body, headers=None):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        """Quiet: the test reads server.asked instead."""


def start(users: list, submissions: list, assignment: dict) -> ThreadingHTTPServer:
    """A Canvas serving these users and submissions, and the assignment's name and
    points_possible; stop() it when done, whatever the test did."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Canvas)
    httpd.lock, httpd.asked, httpd.failures, httpd.token = threading.Lock(), [], 0, TOKEN
    httpd.users, httpd.submissions, httpd.forbidden = list(users), list(submissions), False
    httpd.assignment = dict(assignment)
    httpd.thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                    daemon=True)
    httpd.thread.start()
    return httpd


def stop(httpd: ThreadingHTTPServer) -> None:
    httpd.shutdown()
    httpd.server_close()
    httpd.thread.join()


def url(httpd: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{httpd.server_address[1]}"
