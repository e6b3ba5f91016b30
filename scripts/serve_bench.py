#!/usr/bin/env python3
"""Times `trit-cli serve` under N concurrent streams: aggregate decode tokens/s and time to first token.

Start a server first (`trit-cli serve MODEL --port 8080 --parallel 16 --queue 64`), then:

    scripts/serve_bench.py --url http://127.0.0.1:8080 --streams 1,2,4,8,16 --max-tokens 128 --prompt-words 400

Standard library only (it runs on hosts with nothing but python3). Each stream is a streamed completion
with temperature 0 (or --temperature) and stream_options.include_usage; tokens are the server's usage.completion_tokens.
Aggregate tokens/s = all tokens generated / wall time from the first request sent to the last stream's end.
With the single-stream scheduler, streams queue: the aggregate stays near one stream's rate.

--late-prompt-words W: once the streams decode (--late-after seconds after they start), one more request
with a prompt of W words (about W tokens, its start distinct from every cached prompt) arrives; its time to first token is printed with its
prompt's token count: the wait of a new, long prompt under load.
"""
import argparse
import http.client
import json
import statistics
import threading
import time
import urllib.parse


def one_stream(url, model, prompt, max_tokens, key, out, temperature=0.0, repeat_penalty=None):
    u = urllib.parse.urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
    request = {"model": model, "prompt": prompt, "max_tokens": max_tokens, "temperature": temperature,
               "stream": True, "stream_options": {"include_usage": True}}
    if repeat_penalty is not None:
        request["repeat_penalty"] = repeat_penalty
    body = json.dumps(request)
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = "Bearer " + key
    t0 = time.perf_counter()
    conn.request("POST", "/v1/completions", body, headers)
    res = conn.getresponse()
    if res.status != 200:
        raise SystemExit(f"HTTP {res.status}: {res.read()[:300]!r}")
    first = None
    tokens = prompt_tokens = 0
    for raw in res:
        line = raw.decode().strip()
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        chunk = json.loads(line[6:])
        if chunk.get("usage"):
            tokens = chunk["usage"]["completion_tokens"]
            prompt_tokens = chunk["usage"]["prompt_tokens"]
        if first is None and chunk.get("choices") and chunk["choices"][0].get("text"):
            first = time.perf_counter()
    out.append({"ttft_ms": ((first or time.perf_counter()) - t0) * 1000, "tokens": tokens,
                "prompt_tokens": prompt_tokens, "end": time.perf_counter()})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default="http://127.0.0.1:8080")
    ap.add_argument("--api-key", default="")
    ap.add_argument("--streams", default="1,2,4,8,16")
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--prompt-words", type=int, default=400, help="prompt length in words (distinct per stream)")
    ap.add_argument("--late-prompt-words", type=int, default=0, help="a request with this long a prompt joins the streams")
    ap.add_argument("--late-after", type=float, default=1.0, help="seconds after the streams start")
    ap.add_argument("--temperature", type=float, default=0.0, help="of the streams (0: greedy; the server's other sampling defaults)")
    ap.add_argument("--repeat-penalty", type=float, default=None,
                    help="of the streams (default: the server's, 1.1; 1 makes greedy streams plain argmax)")
    args = ap.parse_args()
    u = urllib.parse.urlparse(args.url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    conn.request("GET", "/v1/models", headers={"Authorization": "Bearer " + args.api_key} if args.api_key else {})
    model = json.loads(conn.getresponse().read())["data"][0]["id"]
    print(f"model {model}, max_tokens {args.max_tokens}, prompt {args.prompt_words} words")
    print("streams  aggregate t/s  per-stream t/s  ttft median ms  ttft max ms")
    for n in [int(s) for s in args.streams.split(",")]:
        results, threads = [], []
        t0 = time.perf_counter()
        for i in range(n):
            prompt = f"Stream {i} at {time.time()}: " + " ".join(["word"] * args.prompt_words)  # no shared cache
            th = threading.Thread(target=one_stream,
                                  args=(args.url, model, prompt, args.max_tokens, args.api_key, results, args.temperature,
                                        args.repeat_penalty))
            th.start()
            threads.append(th)
        late = []
        if args.late_prompt_words:
            time.sleep(args.late_after)
            # A distinct start, so no cached prefix shortens it.
            prompt = f"Late request {time.time_ns()}: " + " ".join(["word"] * args.late_prompt_words)
            one_stream(args.url, model, prompt, 8, args.api_key, late)
        for th in threads:
            th.join()
        wall = max(r["end"] for r in results) - t0
        total = sum(r["tokens"] for r in results)
        ttft = [r["ttft_ms"] for r in results]
        print(f"{n:7d}  {total / wall:13.1f}  {total / wall / n:14.1f}  {statistics.median(ttft):14.1f}  {max(ttft):11.1f}")
        if late:
            busy = sum(1 for r in results if r["end"] > t0 + args.late_after + late[0]["ttft_ms"] / 1000)
            print(f"         late prompt of {late[0]['prompt_tokens']} tokens: first token after {late[0]['ttft_ms']:.1f} ms "
                  f"({busy} of {n} streams still decoding when it came)")


if __name__ == "__main__":
    main()
