"""An S3 server on loopback for the store's tests: moto's server mode on a free port.

Run with .venv's python: ``python tests/support/moto_server.py BUCKET...`` creates the buckets,
prints the port on a line of its own, and serves until its standard input closes (the test
that started it ended, or died).
"""

from __future__ import annotations

import json
import sys

import boto3
from moto.server import ThreadedMotoServer


def main() -> None:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    port = server.get_host_and_port()[1]
    s3 = boto3.client(
        "s3",
        endpoint_url=f"http://127.0.0.1:{port}",
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    for bucket in sys.argv[1:]:
        s3.create_bucket(Bucket=bucket)
        # The tests read and garble objects with plain HTTP requests, unsigned.
        policy = {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Principal": "*",
                    "Action": ["s3:GetObject", "s3:PutObject"],
                    "Resource": f"arn:aws:s3:::{bucket}/*",
                }
            ],
        }
        s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps(policy))
    print(port, flush=True)
    sys.stdin.read()
    server.stop()


if __name__ == "__main__":
    main()
