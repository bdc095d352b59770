#!/usr/bin/env python3
"""A git smart-HTTP server for the tests: git-http-backend behind Basic
authentication (user x-access-token, password TOKEN), as a CI job reaches
its repository with a token in the URL. Prints its port, then serves.
usage: git_http.py ROOT TOKEN"""
import base64
import http.server
import os
import subprocess
import sys

ROOT, TOKEN = sys.argv[1], sys.argv[2]
BACKEND = "/usr/lib/git-core/git-http-backend"
WANT = "Basic " + base64.b64encode(("x-access-token:" + TOKEN).encode()).decode()


class Handler(http.server.BaseHTTPRequestHandler):
    def body(self):
        if self.headers.get("Transfer-Encoding", "") != "chunked":
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))
        data = b""
        while True:
            n = int(self.rfile.readline().strip(), 16)
            if n == 0:
                self.rfile.readline()
                return data
            data += self.rfile.read(n)
            self.rfile.readline()

    def serve(self):
        if self.headers.get("Authorization", "") != WANT:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        path, _, query = self.path.partition("?")
        data = self.body()
        env = dict(os.environ, GIT_PROJECT_ROOT=ROOT, GIT_HTTP_EXPORT_ALL="1",
                   PATH_INFO=path, QUERY_STRING=query, REQUEST_METHOD=self.command,
                   REMOTE_USER="x-access-token", CONTENT_LENGTH=str(len(data)),
                   CONTENT_TYPE=self.headers.get("Content-Type", ""))
        out = subprocess.run([BACKEND], input=data, env=env, capture_output=True).stdout
        head, _, rest = out.partition(b"\r\n\r\n")
        status, headers = 200, []
        for line in head.decode().split("\r\n"):
            key, _, value = line.partition(":")
            if key.lower() == "status":
                status = int(value.split()[0])
            elif key:
                headers.append((key, value.strip()))
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(rest)))
        self.end_headers()
        self.wfile.write(rest)

    do_GET = do_POST = serve

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
