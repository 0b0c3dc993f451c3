#!/usr/bin/env python3
"""A misbehaving UCI engine for kibitzer's tests: it speaks UCI through a real
engine (Debian's stockfish) and misbehaves as told by its arguments:

  crash_at=N     exit (crash) when asked for its N-th move, and every N-th after
  crash_log=F    append a line to the file F at each crash (for measurements)
  hang_at=N      at its N-th move, answer nothing and ignore `stop`
  illegal_at=N   at its N-th move, answer an illegal move
  garbage        print junk between lines: binary bytes, a 20,000-character line
  slow_start=S   wait S seconds before answering `uci` and `isready`
  ignore_stop    never answer `stop` early (the search runs to its own end)

Written for the tests only; GPL-3.0-or-later like the project.
"""
import os
import shutil
import subprocess
import sys
import threading
import time


def arg(name, default=None):
    for a in sys.argv[1:]:
        if a == name:
            return True
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return default


CRASH_AT = int(arg("crash_at", 0))
HANG_AT = int(arg("hang_at", 0))
ILLEGAL_AT = int(arg("illegal_at", 0))
GARBAGE = bool(arg("garbage", False))
SLOW_START = float(arg("slow_start", 0))
IGNORE_STOP = bool(arg("ignore_stop", False))
CRASH_LOG = arg("crash_log", None)

out = sys.stdout.buffer
lock = threading.Lock()


def say(line):
    with lock:
        out.write(line.encode() + b"\n")
        out.flush()


def junk():
    with lock:
        out.write(b"\x00\xff\xfe garbage \x07\n")
        out.write(b"x" * 20000 + b"\n")
        out.write(b"info depth banana score cp\n")
        out.flush()


STOCKFISH = shutil.which("stockfish") or "/usr/games/stockfish"
engine = subprocess.Popen(
    [STOCKFISH], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
)
state = {"go": 0, "hanging": False}


def from_engine():
    for raw in engine.stdout:
        line = raw.decode(errors="replace").rstrip("\r\n")
        if line.startswith("Stockfish"):
            continue
        if line.startswith("bestmove"):
            if state["hanging"]:
                continue
            if ILLEGAL_AT and state["go"] % ILLEGAL_AT == 0:
                line = "bestmove a1a8"
        if GARBAGE and line.startswith("info"):
            junk()
        say(line)


threading.Thread(target=from_engine, daemon=True).start()


def to_engine(line):
    engine.stdin.write((line + "\n").encode())
    engine.stdin.flush()


for raw in sys.stdin:
    line = raw.strip()
    if line in ("uci", "isready") and SLOW_START:
        time.sleep(SLOW_START)
    if line.startswith("go"):
        state["go"] += 1
        n = state["go"]
        if CRASH_AT and n % CRASH_AT == 0:
            if CRASH_LOG:
                with open(CRASH_LOG, "a") as f:
                    f.write("crash\n")
            engine.kill()
            os._exit(3)
        if HANG_AT and n == HANG_AT:
            state["hanging"] = True
            continue
    if line == "stop" and (IGNORE_STOP or state["hanging"]):
        continue
    if line == "quit":
        to_engine("quit")
        break
    to_engine(line)
