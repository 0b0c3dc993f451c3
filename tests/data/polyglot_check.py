#!/usr/bin/env python3
"""Development check (not run by `cargo test`): cross-checks kibitzer's Polyglot keys
and Polyglot export against python-chess's `chess.polyglot`, and writes the expected
values the integration tests compare with:

  polyglot_keys.txt      start FEN | moves (UCI) | Polyglot key of the position reached
  polyglot_export.txt    moves (UCI) from the start | entries python-chess finds in the
                         exported book for that position (uci:weight, book order)

Usage (from the repository root, after `cargo build --release`):

  python3 tests/data/polyglot_check.py

It builds a book from the first 300 games of ../shared/data/pgn/masters.pgn (12 plies; positions up to 10 plies deep),
exports it with `kibitzer book export`, and reads the export back with python-chess.
"""
import os
import subprocess
import sys
import tempfile

import chess
import chess.pgn
import chess.polyglot

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
MASTERS = os.path.join(ROOT, "..", "shared", "data", "pgn", "masters.pgn")
KIBITZER = os.path.join(ROOT, "target", "release", "kibitzer")


def first_games(n):
    games = []
    with open(MASTERS, encoding="utf-8", errors="replace") as f:
        while len(games) < n:
            g = chess.pgn.read_game(f)
            if g is None:
                break
            games.append(g)
    return games


def keys():
    lines = []
    start = chess.STARTING_FEN
    for g in first_games(40):
        b = chess.Board()
        moves = []
        for m in list(g.mainline_moves())[:14]:
            b.push(m)
            moves.append(m.uci())
        lines.append("%s|%s|%016x" % (start, " ".join(moves), chess.polyglot.zobrist_hash(b)))
    # En passant: a capturer next to the pushed pawn (legal), a pinned one (the
    # capture is illegal, Polyglot still hashes the file), none next to it.
    special = [
        ("7k/2p5/8/KP5r/8/8/8/8 b - - 0 1", ["c7c5"]),
        ("7k/2p5/8/1P6/8/8/8/K7 b - - 0 1", ["c7c5"]),
        ("7k/2p5/8/8/8/8/8/K7 b - - 0 1", ["c7c5"]),
        ("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1", ["e2e4"]),
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", ["e1g1"]),
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", ["a1a8"]),
        ("r3k2r/8/8/8/8/8/8/R3K2R b Kq - 0 1", ["e8c8"]),
    ]
    for fen, moves in special:
        b = chess.Board(fen)
        for u in moves:
            b.push_uci(u)
        lines.append("%s|%s|%016x" % (fen, " ".join(moves), chess.polyglot.zobrist_hash(b)))
    with open(os.path.join(DATA, "polyglot_keys.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("polyglot_keys.txt: %d positions" % len(lines))


def export():
    tmp = tempfile.mkdtemp()
    pgn = os.path.join(tmp, "first300.pgn")
    with open(pgn, "w") as f:
        for g in first_games(300):
            print(g, file=f, end="\n\n")
    book = os.path.join(tmp, "book.bin")
    poly = os.path.join(tmp, "poly.bin")
    subprocess.run([KIBITZER, "book", "create", pgn, "12", "--out", book], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([KIBITZER, "book", "export", book, poly], check=True,
                   stdout=subprocess.DEVNULL)
    lines = []
    seen = set()
    with chess.polyglot.open_reader(poly) as r:
        for g in first_games(25):
            b = chess.Board()
            moves = []
            for m in list(g.mainline_moves())[:10]:
                key = " ".join(moves)
                if key not in seen:
                    seen.add(key)
                    es = ["%s:%d" % (e.move.uci(), e.weight) for e in r.find_all(b, minimum_weight=0)]
                    lines.append("%s|%s" % (key, " ".join(es)))
                b.push(m)
                moves.append(m.uci())
    with open(os.path.join(DATA, "polyglot_export.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("polyglot_export.txt: %d positions" % len(lines))


if __name__ == "__main__":
    keys()
    if os.path.exists(KIBITZER):
        export()
    else:
        print("no %s: build it first for the export check" % KIBITZER, file=sys.stderr)
