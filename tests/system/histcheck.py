#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A history checker for fault tests (issue #5's properties, on any cluster).

  histcheck.py run HISTORY CLIENTS N RUNDIR [PREFIX] -- CLIENTS threads each
      submit N jobs with sbatch (named PREFIX-client-i, PREFIX h by default),
      recording every call and its answer (JSON lines)
  histcheck.py check HISTORY RUNDIR   -- verify, from the history, the
      controller's answers (scontrol/sacct) and the jobs' own run records
  histcheck.py converge HOST:PORT...  -- every controller (asked itself, not
      the leader) holds the same jobs in the same final states, within 60 s (a follower catching up under a sanitizer is slow)

Properties checked:
  1. every submission acknowledged to a client (an id printed, exit 0)
     exists, under that id, exactly once;
  2. no submission exists twice (one unique name under two ids);
  3. no job ran twice at the same time (each run appends start/end lines
     with the time to RUNDIR/<id>.runs);
  4. the state converges: every job of the history reached a final state.
Exit 0 when all hold; otherwise each violation on stderr and exit 1.
"""
import json
import os
import subprocess
import sys
import threading
import time

FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
         "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"}


def run(history, clients, n, rundir, prefix="h"):
    lock = threading.Lock()
    out = open(history, "w")

    def client(k):
        for i in range(n):
            name = "%s-%d-%d" % (prefix, k, i)
            t0 = time.time()
            script = ("#!/bin/bash\n"
                      "echo \"start $(date +%%s.%%N)\" >> %s/$SLURM_JOB_ID.runs\n"
                      "sleep 0.2\n"
                      "echo \"end $(date +%%s.%%N)\" >> %s/$SLURM_JOB_ID.runs\n") % (rundir, rundir)
            try:
                p = subprocess.run(["sbatch", "--parsable", "-J", name, "-o", "/dev/null"],
                                   input=script, capture_output=True, text=True, timeout=60)
                rc, txt, err = p.returncode, p.stdout.strip(), p.stderr.strip()
            except subprocess.TimeoutExpired:
                rc, txt, err = None, "", "timeout"
            rec = {"op": "submit", "client": k, "name": name, "t0": t0, "t1": time.time(),
                   "rc": rc, "id": int(txt) if rc == 0 and txt.isdigit() else None,
                   "error": err}
            with lock:
                out.write(json.dumps(rec) + "\n")
                out.flush()

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.close()


def jobs_by_id():
    """Every job the cluster knows: sacct's rows (id, name, state)."""
    p = subprocess.run(["sacct", "-n", "-X", "-P", "-o", "JobID,JobName,State"],
                       capture_output=True, text=True)
    jobs = {}
    for line in p.stdout.splitlines():
        f = line.split("|")
        if len(f) >= 3 and f[0].isdigit():
            jobs.setdefault(int(f[0]), []).append((f[1], f[2].split()[0]))
    return jobs


def check(history, rundir, wait=60):
    recs = [json.loads(l) for l in open(history) if l.strip()]
    submitted = set(r["name"] for r in recs)
    bad = []
    deadline = time.time() + wait
    while True:
        jobs = jobs_by_id()
        # the history's jobs (others, a test's long job, may run on)
        pending = [i for i, rows in jobs.items()
                   if rows[-1][1] not in FINAL and rows[0][0] in submitted]
        if not pending or time.time() > deadline:
            break
        time.sleep(0.5)
    for i in pending:
        bad.append("job %d never reached a final state (%s)" % (i, jobs[i][-1][1]))
    names = {}
    for i, rows in jobs.items():
        if len(rows) != 1:
            bad.append("job %d has %d accounting rows" % (i, len(rows)))
        names.setdefault(rows[0][0], []).append(i)
    acked = 0
    for r in recs:
        if r["id"] is None:
            continue
        acked += 1
        if r["id"] not in jobs:
            bad.append("acknowledged job %d (%s) is lost" % (r["id"], r["name"]))
        elif jobs[r["id"]][0][0] != r["name"]:
            bad.append("job %d is %s, not %s" % (r["id"], jobs[r["id"]][0][0], r["name"]))
    for name, ids in names.items():
        if name in submitted and len(ids) > 1:
            bad.append("submission %s exists %d times: %s" % (name, len(ids), ids))
    runs = 0
    for fn in os.listdir(rundir):
        if not fn.endswith(".runs"):
            continue
        open_run = None
        for line in open(os.path.join(rundir, fn)):
            what, _, t = line.partition(" ")
            if what == "start":
                runs += 1
                if open_run is not None:
                    bad.append("job %s: a run started at %s while one from %s ran"
                               % (fn[:-5], t.strip(), open_run))
                open_run = t.strip()
            elif what == "end":
                open_run = None
    print("histcheck: %d submissions, %d acknowledged, %d jobs known, %d runs, %d violations"
          % (len(recs), acked, len(jobs), runs, len(bad)))
    for b in bad:
        print("histcheck: " + b, file=sys.stderr)
    return 1 if bad else 0


def root_token():
    """A token for root, signed with the cluster key beside $SLURM_CONF."""
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from jwt import token
    key = open(os.path.join(os.path.dirname(os.environ["SLURM_CONF"]), "jwt_hs256.key"), "rb").read()
    now = int(time.time())
    return token({"alg": "HS256", "typ": "JWT"}, {"sun": "root", "iat": now, "exp": now + 600}, key)


def ask(addr, req):
    import socket
    import struct
    host, port = addr.rsplit(":", 1)
    req = dict(req, auth=root_token())
    s = socket.create_connection((host, int(port)), timeout=5)
    b = json.dumps(req).encode()
    s.sendall(struct.pack(">I", len(b)) + b)
    data = b""
    while len(data) < 4:
        chunk = s.recv(4 - len(data))
        if not chunk:
            raise OSError("closed")
        data += chunk
    n = struct.unpack(">I", data)[0]
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise OSError("closed")
        data += chunk
    s.close()
    return json.loads(data)


def converge(addrs, wait=60):
    """Each controller's own accounting: the same jobs, the same states."""
    deadline = time.time() + wait
    while True:
        views = {}
        for a in addrs:
            try:
                r = ask(a, {"type": "acct"})
                views[a] = sorted((j["job_id"], j["state"]) for j in r.get("jobs", []))
            except (OSError, ValueError) as e:
                views[a] = "unreachable: %s" % e
        first = views[addrs[0]]
        if all(v == first and not isinstance(v, str) for v in views.values()):
            print("histcheck: %d controllers agree on %d jobs" % (len(addrs), len(first)))
            return 0
        if time.time() > deadline:
            for a, v in views.items():
                print("histcheck: %s: %s" % (a, v if isinstance(v, str) else
                                             "%d jobs, last %s" % (len(v), v[-3:])),
                      file=sys.stderr)
            return 1
        time.sleep(0.3)


if __name__ == "__main__":
    if len(sys.argv) in (6, 7) and sys.argv[1] == "run":
        run(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], *sys.argv[6:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "converge":
        sys.exit(converge(sys.argv[2:]))
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
