"""A throwaway S3-compatible server for durable-agent's tests: moto's S3 (PyPI `moto[server]`), serving
one request at a time.

Why not `moto_server` as it is: its server is threaded, and moto evaluates `If-None-Match: *` on PutObject
as a lookup followed by a store. Two concurrent creators of one key could both pass the lookup, so the
conditional write that at-most-once tools rely on would not be atomic. Served one request at a time, each
conditional write is checked and applied before the next request starts, which is the guarantee S3 gives.

Usage: python s3-test-server.py -H 127.0.0.1 -p 9000   (the same flags as moto_server)
"""
import argparse
import logging
import os
import signal
import sys

from werkzeug.serving import run_simple
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, required=True)
    args = parser.parse_args()
    os.environ.setdefault("MOTO_PORT", str(args.port))
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    app = DomainDispatcherApplication(create_backend_app)
    run_simple(args.host, args.port, app, threaded=False, processes=1)


if __name__ == "__main__":
    main()
