#!/usr/bin/env python3
"""A small client of `sumito json-analysis`, with Python's standard library only.

    python3 docs/examples/analysis_client.py                    # sumito on the PATH
    python3 docs/examples/analysis_client.py --program target/debug/sumito \\
        --position "5/6/7/8/6bbw/8/7/6/5 b 0 5" -- --model models/quick

It starts the analysis program, asks its version and its model, analyses one
position with partial answers as the search grows, and prints the final
candidates with their lines. `AnalysisProgram` is the part to reuse: one
process, any number of queries in flight, answers routed by `id`.
The protocol: docs/analysis-protocol.md.
"""

import argparse
import itertools
import json
import queue
import subprocess
import sys
import threading


class AnalysisError(Exception):
    """An error answer: the message, and the field at fault if any."""

    def __init__(self, answer):
        super().__init__(answer["error"])
        self.field = answer.get("field")


class AnalysisProgram:
    """One `sumito json-analysis` process; thread-safe."""

    def __init__(self, command):
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        self.ids = itertools.count(1)
        self.lock = threading.Lock()
        self.waiting = {}  # id -> queue of its answers
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            answer = json.loads(line)
            with self.lock:
                answers = self.waiting.get(answer.get("id"))
            if answers is not None:
                answers.put(answer)
        with self.lock:
            for answers in self.waiting.values():
                answers.put(None)

    def _send(self, request):
        request_id = "client-%d" % next(self.ids)
        answers = queue.Queue()
        with self.lock:
            self.waiting[request_id] = answers
        self.process.stdin.write(json.dumps(dict(request, id=request_id)) + "\n")
        self.process.stdin.flush()
        return request_id, answers

    def _next(self, answers):
        answer = answers.get(timeout=600)
        if answer is None:
            raise AnalysisError({"error": "the analysis program ended"})
        if "error" in answer:
            raise AnalysisError(answer)
        return answer

    def action(self, name, **fields):
        """The answer to an action: query_version, query_models, clear_cache..."""
        request_id, answers = self._send(dict(fields, action=name))
        try:
            return self._next(answers)
        finally:
            with self.lock:
                del self.waiting[request_id]

    def analyse(self, query, on_partial=None):
        """The final answer of every turn the query asks about (one turn:
        the last, unless `turns` says); `on_partial(answer)` for each partial
        answer on the way."""
        turns = len(query.get("turns", [None]))
        request_id, answers = self._send(query)
        finals = []
        try:
            while len(finals) < turns:
                answer = self._next(answers)
                if answer.get("partial"):
                    if on_partial:
                        on_partial(answer)
                else:
                    finals.append(answer)
        finally:
            with self.lock:
                del self.waiting[request_id]
        return sorted(finals, key=lambda answer: answer["turn"])

    def close(self):
        self.process.stdin.close()
        code = self.process.wait()
        self.reader.join()
        return code


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--program", default="sumito", help="the sumito binary")
    # `--engine`: the option's older name, still read (hidden).
    parser.add_argument("--engine", dest="program", help=argparse.SUPPRESS)
    parser.add_argument("--position", help="a position text (default: the model's start)")
    parser.add_argument("--visits", type=int, default=200)
    parser.add_argument("--report-every", type=int, default=50, help="visits between partial answers")
    parser.add_argument("program_args", nargs="*", help="more arguments of json-analysis (after --)")
    args = parser.parse_args()

    program = AnalysisProgram([args.program, "json-analysis", *args.program_args])
    try:
        version = program.action("query_version")
        print("sumito %s, protocol %d" % (version["version"], version["protocol"]))
        for model in program.action("query_models")["models"]:
            print("model %s, generation %d, %s" % (model["name"], model["generation"], model["rules_text"]))
        query = {"visits": args.visits, "report_every_visits": args.report_every, "top": 3}
        if args.position:
            query["position"] = args.position

        def show(answer):
            best = answer["moves"][0]
            print("  ... %d simulations: %s (%+.3f)" % (answer["root"]["simulations"], best["move"], answer["root"]["value"]))

        (answer,) = program.analyse(query, on_partial=show)
        print("%s to move, value %+.3f after %d simulations (network alone: %+.3f)" % (
            answer["side"], answer["root"]["value"], answer["root"]["simulations"], answer["raw"]["value"]))
        for candidate in answer["moves"]:
            q = candidate["q"]
            print("  %d. %-6s visits %4d  q %s  lcb %s  line %s" % (
                candidate["order"] + 1,
                candidate["move"],
                candidate["visits"],
                "-" if q is None else "%+.3f" % q,
                "-" if candidate["lcb"] is None else "%+.3f" % candidate["lcb"],
                " ".join(candidate["line"]),
            ))
        try:
            program.analyse({"visits": 0})
        except AnalysisError as error:
            print("refused as expected: field %s: %s" % (error.field, error))
    finally:
        code = program.close()
    return code


if __name__ == "__main__":
    sys.exit(main())
