#!/usr/bin/env bash
# A sharded `blazeface redact` as a Slurm job array on this machine (issue 35): starts a one-node
# Slurm (installing slurm-wlm and munge with apt-get if missing; needs root), makes a folder of
# PHOTOS photos and VIDEOS short videos with ffmpeg, redacts it once on one machine (the
# reference, --threads 2), then as a 4-task array (--threads 1) whose tasks requeue themselves on exit
# 75 or a signal; kills one task's blazeface with SIGKILL part-way, lets Slurm rerun it, and
# checks that no partial file was ever at an output path, that the rerun redid only what its
# manifest did not record as done, that the merged manifest covers every input once with the
# reference's totals, and that every output equals the reference's byte for byte.
#
# usage: bash Tools/slurm-array-check.sh [PHOTOS [VIDEOS]]   (default 300 and 6)
# BLAZEFACE_BIN: the binary (default .build/release/blazeface, its resource bundle beside it).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
photos="${1:-300}" videos="${2:-6}" shards=4
bin="${BLAZEFACE_BIN:-$repo/.build/release/blazeface}"
[ -x "$bin" ] || { echo "slurm-check: no binary at $bin: swift build -c release --static-swift-stdlib --product blazeface"; exit 1; }
work="$(mktemp -d /tmp/blazeface-slurm.XXXXXX)"
say() { echo "slurm-check: $*"; }
now() { date +%s.%N; }

# --- Slurm, one node, our own daemons and ports ---------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurm-wlm and munge"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    [ -s /etc/munge/munge.key ] || { mungekey --create 2>/dev/null || dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 2>/dev/null; }
    chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
    mkdir -p /run/munge /var/log/munge /var/lib/munge
    chown munge:munge /run/munge /var/log/munge /var/lib/munge
    su -s /bin/sh munge -c munged
    sleep 1
fi
export SLURM_CONF="$work/slurm/slurm.conf"
mkdir -p "$work/slurm/state" "$work/slurm/spool" "$work/logs"
cat > "$SLURM_CONF" <<CONF
ClusterName=blazefacecheck
SlurmctldHost=localhost
SlurmctldPort=6917
SlurmdPort=6918
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$work/slurm/state
SlurmdSpoolDir=$work/slurm/spool
SlurmctldPidFile=$work/slurm/slurmctld.pid
SlurmdPidFile=$work/slurm/slurmd.pid
SlurmctldLogFile=$work/slurm/slurmctld.log
SlurmdLogFile=$work/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobRequeue=1
MpiDefault=none
SwitchType=switch/none
NodeName=localhost CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
cleanup() {
    local pids=""
    for d in slurmd slurmctld; do
        [ -s "$work/slurm/$d.pid" ] && pids="$pids $(cat "$work/slurm/$d.pid")"
    done
    # shellcheck disable=SC2086
    [ -n "$pids" ] && kill $pids 2>/dev/null || true
    for _ in $(seq 50); do
        alive=""
        for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ -z "$alive" ] && break
        sleep 0.1
    done
    [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 30); do sinfo -h -o %t 2>/dev/null | grep -q idle && break; sleep 1; done
sinfo -h -o %t | grep -q idle || { say "Slurm did not come up"; cat "$work/slurm/"*.log; exit 1; }
say "Slurm $(sinfo -V | cut -d' ' -f2) up: one node, $(nproc) CPUs"

# --- the binary that travels, and the media ---------------------------------------------------
mkdir -p "$work/dist"
cp "$bin" "$work/dist/blazeface"
cp -R "$(dirname "$bin")/BlazeFace_BlazeWeights.resources" "$work/dist/"
bin="$work/dist/blazeface"
in="$work/in"
mkdir -p "$in/jpeg" "$in/png/deeper" "$in/video"
src="$repo/Tests/Fixtures/images/two_faces_1280x853.png"
half=$((photos / 2))
ffmpeg -v error -loop 1 -i "$src" -vf "scale=480:-2,crop=320:240:'mod(n*7,160)':'mod(n*3,80)'" -frames:v "$half" -q:v 3 "$in/jpeg/p%04d.jpg"
ffmpeg -v error -loop 1 -i "$repo/Tests/Fixtures/images/astronaut.png" -vf "scale=400:-2,crop=256:256:'mod(n*5,144)':'mod(n*3,144)'" \
    -frames:v "$((photos - half))" "$in/png/q%04d.png"
mv "$in"/png/q00[0-4]*.png "$in/png/deeper/" 2>/dev/null || true
for v in $(seq 1 "$videos"); do
    ffmpeg -v error -loop 1 -framerate 25 -i "$src" -f lavfi -i sine=frequency=440:sample_rate=48000 \
        -vf "scale=480:-2,crop=320:180:'min(n*2,150)+$((v * 5))':$((v * 7))" -frames:v 24 -shortest -pix_fmt yuv420p \
        -c:v libx264 -c:a aac "$in/video/clip$v.mp4"
done
inputs=$(find "$in" -type f | wc -l)
say "$inputs inputs: $photos photos (JPEG, PNG, in subfolders), $videos videos of 24 frames"

# --- the reference: one machine, one process -------------------------------------------------
t0=$(now)
"$bin" redact "$in" "$work/ref" --threads 2 --no-progress 2>"$work/logs/ref.err"
t1=$(now)
say "single run: $(printf %.1f "$(echo "$t1 - $t0" | bc)") s"

# --- the array -------------------------------------------------------------------------------
cat > "$work/task.sh" <<TASK
#!/bin/bash
"$bin" redact "$in" "$work/out" --threads 1 --progress json 2>>"$work/logs/progress-\$SLURM_ARRAY_TASK_ID.jsonl" &
pid=\$!
echo \$pid > "$work/logs/task-\$SLURM_ARRAY_TASK_ID.pid"
wait \$pid
status=\$?
echo "task \$SLURM_ARRAY_TASK_ID restart \${SLURM_RESTART_COUNT:-0} exit \$status" >> "$work/logs/events"
# Slurm retries by hand: requeue this task on 75 (worth a retry) or a signal; 64 and 65 are final.
if { [ \$status -eq 75 ] || [ \$status -gt 128 ]; } && [ "\${SLURM_RESTART_COUNT:-0}" -lt 3 ]; then
    scontrol requeue "\${SLURM_ARRAY_JOB_ID}_\${SLURM_ARRAY_TASK_ID}"
fi
exit \$status
TASK
chmod +x "$work/task.sh"
t2=$(now)
job=$(sbatch --parsable --array=0-$((shards - 1)) --requeue --cpus-per-task=1 -o "$work/logs/slurm-%a.out" "$work/task.sh")
say "submitted job array $job (tasks 0-$((shards - 1)))"

# Kill task K's blazeface once its manifest holds a random share (20...60%) of its inputs.
victim=$((RANDOM % shards))
manifest="$work/out/.blazeface/manifest-$victim-of-$shards.jsonl"
mine=$(python3 - "$in" "$victim" "$shards" <<'PY'
import hashlib, os, sys
root, k, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
count = 0
for d, _, files in os.walk(root):
    for f in files:
        rel = os.path.relpath(os.path.join(d, f), root)
        count += int(hashlib.sha256(rel.encode()).hexdigest()[:16], 16) % n == k
print(count)
PY
)
at=$(( mine * (20 + RANDOM % 41) / 100 ))
[ "$at" -ge 1 ] || at=1
for _ in $(seq 600); do
    [ -s "$manifest" ] && [ "$(grep -c '"record":"input"' "$manifest")" -ge "$at" ] && break
    sleep 0.1
done
pid=$(cat "$work/logs/task-$victim.pid")
kill -KILL "$pid"
recorded=$(grep -c '"record":"input"' "$manifest" || true)
say "killed task $victim (pid $pid) with SIGKILL after $recorded of its $mine inputs were recorded"
# Nothing partial is visible at an output path: every visible output so far equals the reference's.
( cd "$work/out" && find . -type f -not -path '*/.*' ) | while read -r f; do
    cmp -s "$work/out/$f" "$work/ref/$f" || { say "FAIL: $f differs from the reference right after the kill"; exit 1; }
done
# Slurm holds a requeued task ~2 minutes; let it start at once.
for _ in $(seq 100); do
    state=$(squeue -h -j "${job}_$victim" -o %T 2>/dev/null || true)
    [ "$state" = PENDING ] && { scontrol update JobId="${job}_$victim" StartTime=now 2>/dev/null || true; break; }
    sleep 0.2
done
for _ in $(seq 1800); do [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break; sleep 1; done
t3=$(now)
[ -z "$(squeue -h -j "$job")" ] || { say "FAIL: the array did not finish"; exit 1; }
sort "$work/logs/events" | sed 's/^/slurm-check:   /'
retries=$(grep -c "restart [1-9]" "$work/logs/events" || true)
[ "$retries" -ge 1 ] || { say "FAIL: no task was retried"; exit 1; }
grep -q "task $victim restart 1 exit 0" "$work/logs/events" || { say "FAIL: the killed task did not finish on its retry"; exit 1; }
[ "$(grep -c 'exit 0' "$work/logs/events")" -eq "$shards" ] || { say "FAIL: not every task finished with 0"; exit 1; }

# --- checks ------------------------------------------------------------------------------------
diff -r -x .blazeface "$work/ref" "$work/out" >/dev/null || { say "FAIL: outputs differ from the single run"; diff -rq -x .blazeface "$work/ref" "$work/out" | head; exit 1; }
"$bin" manifest merge "$work/out/.blazeface" > "$work/merged.jsonl"
"$bin" manifest merge "$work/ref/.blazeface" > "$work/ref-merged.jsonl"
python3 - "$work" "$inputs" "$victim" "$shards" <<'PY'
import json, sys
work, inputs, victim, shards = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def lines(p):
    out = []
    for l in open(p, "rb").read().split(b"\n"):
        try: out.append(json.loads(l))
        except Exception: pass
    return out
merged, ref = lines(work + "/merged.jsonl"), lines(work + "/ref-merged.jsonl")
keys = ["inputs", "completed", "refused", "failed", "faces", "frames"]
t, r = merged[-1], ref[-1]
assert t["duplicates"] == 0 and t["manifests"] == shards, t
assert [t[k] for k in keys] == [r[k] for k in keys], (t, r)
assert t["inputs"] == inputs and t["completed"] == inputs, t
owners = {}
for k in range(shards):
    for rec in lines(f"{work}/out/.blazeface/manifest-{k}-of-{shards}.jsonl"):
        if rec.get("record") == "input": owners.setdefault(rec["input"], set()).add(k)
assert len(owners) == inputs and all(len(v) == 1 for v in owners.values()), "an input in two shards"
# The killed task's rerun redid only what was not recorded as done before the kill.
recs = lines(f"{work}/out/.blazeface/manifest-{victim}-of-{shards}.jsonl")
# Records before the kill are those of the first attempt, up to the first record of the rerun: the rerun's
# records start with the first input in sorted order again.
inputs_rec = [rec for rec in recs if rec.get("record") == "input"]
first = inputs_rec[0]["input"]
restart = next(i for i, rec in enumerate(inputs_rec) if i > 0 and rec["input"] == first)
before, after = inputs_rec[:restart], inputs_rec[restart:]
done_before = {rec["input"] for rec in before if rec["status"] == "done"}
assert all(rec["status"] == ("skipped" if rec["input"] in done_before else "done") for rec in after), "the rerun redid a done input"
print(f"slurm-check: merged manifest: {t['inputs']} inputs, each in one of {shards} shards, {t['faces']} face masks, "
      f"{t['frames']} video frames, equal to the single run's; the killed task's rerun skipped {len(done_before)} and did {len(after) - len(done_before)}")
PY
say "array: $(printf %.1f "$(echo "$t3 - $t2" | bc)") s wall (2 CPUs, 1 per task), $retries retried task(s)"
say "every output equals the single run's byte for byte"
say "passed"
