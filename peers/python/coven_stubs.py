"""Builds the coven Python stubs with grpcio-tools from spec/coven/coven.proto into a
temporary folder (nothing generated is committed) and imports them."""

import importlib
import os
import sys
import tempfile

from grpc_tools import protoc


def load(proto_path):
    """Returns the (coven_pb2, coven_pb2_grpc) modules generated from `proto_path`."""
    out = tempfile.mkdtemp(prefix="coven-stubs-")
    proto_dir, proto_file = os.path.split(os.path.abspath(proto_path))
    code = protoc.main([
        "grpc_tools.protoc",
        f"-I{proto_dir}",
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        proto_file,
    ])
    if code != 0:
        raise SystemExit(f"grpc_tools.protoc failed with {code}")
    sys.path.insert(0, out)
    stem = os.path.splitext(proto_file)[0]
    return importlib.import_module(f"{stem}_pb2"), importlib.import_module(f"{stem}_pb2_grpc")
