"""A real one-node Slurm cluster for tests and benchmarks: munged, slurmctld and slurmd
from Debian's packages, configured in a folder of their own (loopback only, process
tracking by /proc, no task plugin, no accounting), stopped by their pids.

    with slurm_cluster(folder) as cluster:      # raises ClusterUnavailable with the reason
        cluster.run("sbatch", ...)
"""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from ports import free_port

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol")


class ClusterUnavailable(Exception):
    """Slurm cannot run here (the message says why)."""


def wait_for(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


class Cluster:
    """A running one-node cluster: ``env`` holds SLURM_CONF for the client commands."""

    def __init__(self, folder):
        self.folder = folder
        self.processes = []
        self.env = dict(os.environ, SLURM_CONF=str(folder / "slurm.conf"))
        self.env.pop("PYTHONPATH", None)

    def start(self, name, argv):
        log = open(self.folder / "log" / f"{name}.out", "wb")
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=self.env,
                                   start_new_session=True)
        log.close()
        self.processes.append(process)
        return process

    def run(self, *argv, **extra):
        environment = dict(self.env, **extra)
        return subprocess.run(list(argv), capture_output=True, text=True, env=environment,
                              timeout=120)

    def log(self, name):
        path = self.folder / "log" / name
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def job_state(self, job):
        shown = self.run("scontrol", "show", "job", str(job)).stdout
        states = [word.split("=", 1)[1] for word in shown.split() if
                  word.startswith("JobState=")]
        return states

    def wait_jobs(self, jobs, seconds=600, release=()):
        """Wait until every job (ids, arrays included) has ended; their states. The jobs
        of ``release`` are started at once whenever they wait for a begin time (a
        requeued batch job waits two minutes) or are held."""
        def ended():
            for job in release:
                shown = self.run("scontrol", "show", "job", str(job)).stdout
                if "Reason=BeginTime" in shown:
                    self.run("scontrol", "update", f"jobid={job}", "StartTime=now")
                elif "JobState=REQUEUE_HOLD" in shown or "Reason=JobHeld" in shown:
                    self.run("scontrol", "release", str(job))
            states = [state for job in jobs for state in self.job_state(job)]
            return states and all(state in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT",
                                            "OUT_OF_MEMORY", "NODE_FAIL")
                                  for state in states)
        try:
            wait_for(ended, seconds, f"jobs {jobs}")
        except AssertionError:
            shown = "\n".join(self.run("scontrol", "show", "job", str(job)).stdout
                              for job in jobs)
            raise AssertionError(f"timed out waiting for jobs {jobs}:\n{shown}") from None
        return [state for job in jobs for state in self.job_state(job)]

    def stop(self):
        subprocess.run(["scancel", "--user", "root"], env=self.env, capture_output=True)
        for process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in reversed(self.processes):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=15)


SLURM_CONF = """\
ClusterName=ci
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
AuthType=auth/munge
AuthInfo=socket={socket}
CredType=cred/munge
StateSaveLocation={folder}/state
SlurmdSpoolDir={folder}/spool
SlurmctldPidFile={folder}/slurmctld.pid
SlurmdPidFile={folder}/slurmd.pid
SlurmctldLogFile={folder}/log/slurmctld.log
SlurmdLogFile={folder}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=3600
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=ci Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""


@contextlib.contextmanager
def slurm_cluster(folder):
    """A running one-node cluster in ``folder`` (a :class:`Cluster`); every daemon is
    stopped on the way out. Raises ClusterUnavailable when Slurm cannot run here."""
    missing = [tool for tool in DAEMONS if shutil.which(tool) is None]
    if missing:
        raise ClusterUnavailable(
            f"Slurm is not installed here (no {', '.join(missing)}): `make test-cluster` "
            "installs slurmctld slurmd slurm-client munge")
    if os.geteuid() != 0:
        raise ClusterUnavailable("the test cluster's daemons run as root")
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("munge", "state", "spool", "log"):
        (folder / name).mkdir(mode=0o700)
    key = folder / "munge" / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    socket_path = folder / "munge" / "munge.socket"
    host = socket.gethostname().split(".")[0]
    (folder / "slurm.conf").write_text(SLURM_CONF.format(
        host=host, ctld_port=free_port(), d_port=free_port(), socket=socket_path,
        folder=folder, cpus=len(os.sched_getaffinity(0))))
    running = Cluster(folder)
    try:
        running.start("munged", ["munged", "-F", "-f", f"--socket={socket_path}",
                                 f"--key-file={key}", f"--pid-file={folder / 'munge' / 'pid'}",
                                 f"--seed-file={folder / 'munge' / 'seed'}",
                                 f"--log-file={folder / 'log' / 'munged.log'}"])
        wait_for(socket_path.exists, 20, "munged's socket")
        running.start("slurmctld", ["slurmctld", "-D", "-f", str(folder / "slurm.conf")])
        running.start("slurmd", ["slurmd", "-D", "-f", str(folder / "slurm.conf")])
        try:
            wait_for(lambda: running.run("sinfo", "-h", "-o", "%t").stdout.strip() == "idle",
                     60, "the node")
        except AssertionError:
            raise ClusterUnavailable(
                "the Slurm daemons did not start here: " + running.log("slurmctld.out")[-300:]
                + running.log("slurmd.out")[-300:]) from None
        yield running
    finally:
        running.stop()
        alive = [process.args[0] for process in running.processes if process.poll() is None]
        assert not alive, f"still running: {alive}"
