"""The sandbox child's bootstrap: a zygote that never runs student code, and one child per scenario.

Side: sandbox child (the zygote is set up by the trusted process but runs this file alone).

This file is never imported by the grader. Its source is passed to `python -I -S -c`: that
process is a shard's zygote (`main`), which forks one zygote per submission and runs nothing
else. A submission's zygote (`serve_submission`) limits itself, enters the jail, compiles the
submission's files WITHOUT running them, and then, for every request, forks a child that
imports the submission and runs the scenario. Student code therefore only ever runs in a
child that holds one request, cannot read the request pipe (its stdin is /dev/null), and
runs under an audit hook that refuses what would let it reach the bootstrap's state or
outlive the check: frames, the garbage collector, tracing, forking, signals to other
processes, sockets, ctypes, reading /proc. Replies are encoded with the C JSON encoder
captured before any student code exists, so patching the json module changes nothing.

Frames are `<length>\n<json bytes>`. Requests arrive on stdin; replies go to the result fd.
"""

import _thread
import json
import os
import resource
import signal
import sys

# Captured before any student code runs: the C scanner and encoder, and the os calls used
# on the reply path.
SCAN = json.decoder.JSONDecoder().scan_once
C_ENCODER = json.encoder.c_make_encoder
ENCODE_STRING = json.encoder.c_encode_basestring_ascii
WRITE, WAITPID, EXIT = os.write, os.waitpid, os._exit
# None where Python has no fork (Windows): no sandbox starts there, but the grader imports this
FORK = getattr(os, "fork", None)

CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x20000000, 0x40000000
CLONE_NEWUSER, CLONE_NEWIPC, CLONE_NEWUTS = 0x10000000, 0x08000000, 0x04000000
# mounts, network, pids, System V IPC and POSIX message queues, host name
JAIL_NAMESPACES = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND = 1, 2, 4, 8, 32, 4096
MS_NOATIME, MS_NODIRATIME, MS_REC, MS_PRIVATE, MS_RELATIME = 1024, 2048, 16384, 1 << 18, 1 << 21
# statvfs flag -> the mount flag a remount in a user namespace must keep (locked flags)
STATVFS_TO_MOUNT = ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC),
                    (os.ST_NOATIME, MS_NOATIME), (os.ST_NODIRATIME, MS_NODIRATIME),
                    (os.ST_RELATIME, MS_RELATIME)) if hasattr(os, "ST_RELATIME") else ()
PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_SECCOMP, PR_SET_NO_NEW_PRIVS = 4, 24, 22, 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
CAPABILITY_VERSION_3 = 0x20080522
# seccomp: classic BPF over struct seccomp_data {int nr; u32 arch; u64 ip; u64 args[6]}
SECCOMP_MODE_FILTER, SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 2, 0x7FFF0000, 0x00050000
BPF_LD, BPF_W, BPF_ABS, BPF_JMP, BPF_JEQ, BPF_JGE, BPF_K, BPF_RET = 0, 0, 0x20, 5, 0x10, 0x30, 0, 6
AF_UNIX = 1
# machine -> (AUDIT_ARCH_*, socket, fcntl, refused outright). Refused outright:
# - io_uring_setup, add_key, request_key, keyctl;
# - memory no limit counts where there is no memory cgroup: memfd_create, memfd_secret (pages
#   never mapped, so RLIMIT_AS misses them), setxattr, lsetxattr, fsetxattr, setxattrat (user.*
#   attributes on the jail's tmpfs are kernel memory outside its size), shmget, semget, msgget,
#   mq_open (System V and POSIX IPC: unmapped memory, and in the `uid` level, which has no IPC
#   namespace, objects that outlive the submission and that classmates can open);
# - state on inodes every jail shares (the standard library, the system's files), a channel
#   between submissions graded at once: flock, inotify_init, inotify_init1, fanotify_init.
SECCOMP_NUMBERS = {
    "x86_64": (0xC000003E, 41, 72, (425, 248, 249, 250, 319, 447, 188, 189, 190, 463,
                                    29, 64, 68, 240, 73, 253, 294, 300)),
    "aarch64": (0xC00000B7, 198, 25, (425, 217, 218, 219, 279, 447, 5, 6, 7, 463,
                                      194, 190, 186, 180, 32, 26, 262)),
}
# fcntl commands refused: record locks (F_GETLK, F_SETLK, F_SETLKW), open file description
# locks (F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW), leases (F_SETLEASE, F_GETLEASE), directory
# notifications (F_NOTIFY): state on a shared inode; and F_SETPIPE_SZ (pipe buffers are kernel
# memory). The child and Python's import system use none of them.
REFUSED_FCNTL = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026, 1031)
# Landlock (the same numbers on every architecture)
SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_FS_RIGHTS = (13, 14, 15, 15, 16)  # how many fs access bits ABI 1, 2, 3, 4, 5+ handle
LANDLOCK_READ = 1 | 4 | 8  # execute, read file, read dir
LANDLOCK_DEVICE = 2 | 4 | (1 << 14) | (1 << 15)  # write, read, truncate, ioctl on devices
LANDLOCK_NET_TCP = 1 | 2  # bind, connect: no rule allows either
LANDLOCK_SCOPES = 1 | 2  # abstract unix sockets and signals outside the domain
SUBMISSION_DIR = "/tmp/submission"
NEW_ROOT = "/tmp"  # exists everywhere; the jail mounts a fresh tmpfs over it as the new root
SYSTEM_DIRS = ("usr", "bin", "lib", "lib32", "lib64", "libx32", "sbin")
DEVICES = ("null", "zero", "random", "urandom")
# Standard modules submissions commonly use, imported once here so each child starts warm.
WARM_MODULES = ("math", "random", "functools", "itertools", "collections", "operator",
                "dataclasses", "typing", "numbers")

# The collector's first threshold in every zygote and scenario child (Python's default is 700):
# an engine's graph is tens of thousands of nodes that all survive until the reply, and at 700
# the collector walks them again and again (two thirds of lab03's 100,000-node chain); at this
# threshold garbage cycles are still collected, a few thousand objects later.
GC_FIRST_THRESHOLD = 10_000

# What the audit guard (install_guard) refuses a submission, by audited event.
# Standard modules allowed to call sys._getframe: they read the caller's module name and
# never hand the frame to the caller (namedtuple, Enum, TypeVar need this).
FRAME_READERS = ("typing.py", "enum.py", "collections/__init__.py", "warnings.py")
# Refused outright.
BLOCKED_EVENTS = frozenset({
    "sys._current_frames", "sys.settrace", "sys.setprofile",
    "sys.addaudithook", "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "os.fork", "os.forkpty", "os.system", "os.exec", "os.spawn", "os.posix_spawn",
    "subprocess.Popen", "pty.spawn", "signal.pthread_kill",
    "socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo",
    "ctypes.dlopen", "ctypes.dlsym", "ctypes.cdata", "ctypes.call_function",
    "resource.setrlimit", "resource.prlimit", "code.__new__", "function.__new__",
})
# Refused but towards the child itself or its own process group.
SIGNAL_EVENTS = frozenset({"os.kill", "os.killpg"})
# Frame-bearing attributes (the audited ways to a frame other than sys._getframe).
BLOCKED_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
# Refused on a path under /proc or /sys.
PATH_EVENTS = frozenset({"open", "os.listdir", "os.scandir", "os.chdir"})
HIDDEN_PATHS = ("/proc", "/sys")


def read_frame(stream):
    header = stream.readline()
    if not header:
        return None
    payload = stream.read(int(header)).decode("utf-8")
    return SCAN(payload, 0)[0]


def refuse(value):
    raise TypeError(f"{type(value).__name__} is not plain data")


ENCODE = C_ENCODER(None, refuse, ENCODE_STRING, None, ":", ",", False, False, True)


def write_frame(fd, message):
    payload = "".join(ENCODE(message, 0)).encode("utf-8")
    data = b"%d\n" % len(payload) + payload
    while data:
        data = data[WRITE(fd, data):]


def install_guard(traceback_reader):
    """From now on, refuse the escape hatches a submission could use to reach this process's
    state or outlive its check: one audit hook, with one rule below for each event it judges.

    It is installed in each scenario's child just before the submission is imported, and Python
    cannot remove an audit hook: there is no switch, nothing can disarm it, and nothing of the
    child runs unguarded after it. The hook reads no global of this file (a submission can import
    it as `__main__` and rebind its names): what it uses is bound here, before any student code
    exists; and a str is judged by its characters, never by methods a subclass gives it.

    Two reads of frames are the bootstrap's own. To judge sys._getframe and the frame-bearing
    attributes, the guard asks which code raised the event (`raiser`), itself with sys._getframe:
    while a thread's guard asks, that call passes when the frame it hands out has no frame of the
    guard among its callers, so no code running inside the guard (a signal handler) is handed the
    guard's frames. And `traceback_reader` may read a traceback's frames for the reply: it is
    known by its code object, which no submission can run in its place.
    """
    stdlib = os.path.dirname(os.__file__) + os.sep
    frame_readers = frozenset(stdlib + name for name in FRAME_READERS)
    reader = traceback_reader.__code__
    getframe, get_ident, getpid = sys._getframe, _thread.get_ident, os.getpid
    as_str, decode = str.__str__, bytes.decode  # a subclass's own methods are never called
    blocked_attributes, hidden_paths = BLOCKED_ATTRIBUTES, HIDDEN_PATHS
    asking = set()  # the threads whose guard is asking which code raised the event it judges

    def raiser():
        """The code that raised the event being judged: three frames up, past this helper, the
        rule that asks and the hook."""
        thread = get_ident()
        already_asking = thread in asking
        asking.add(thread)
        try:
            return getframe(3).f_code
        finally:
            if not already_asking:
                asking.discard(thread)

    def above_the_guard(frame):
        """Whether no frame of the guard is among `frame` and its callers."""
        while frame is not None:
            if frame.f_code in guard_code:
                return False
            frame = frame.f_back
        return True

    # The rules: one per audited event, each returning why the event is refused, or None.

    def frames_for_standard_readers(event, args):
        """sys._getframe: only from FRAME_READERS, or for the guard's own question."""
        if get_ident() in asking:
            allowed = above_the_guard(args[0])
        else:
            allowed = as_str(raiser().co_filename) in frame_readers
        return None if allowed else "the grader's sandbox does not allow sys._getframe in a submission"

    def nothing_compiled_as_a_standard_module(event, args):
        """compile: never under a standard module's file name, which FRAME_READERS trusts."""
        if len(args) > 1 and isinstance(args[1], str) and as_str(args[1]).startswith(stdlib):
            return "the grader's sandbox does not allow compiling as a standard module"
        return None

    def signals_to_itself_only(event, args):
        """os.kill, os.killpg: only to the child itself or its own group, which harms nobody."""
        if args and args[0] in (0, getpid()):
            return None
        return f"the grader's sandbox does not allow {event} in a submission"

    def frames_for_the_traceback_reader(event, args):
        """A traceback's, generator's or coroutine's frame: only to `traceback_reader`."""
        if len(args) > 1 and args[1] in blocked_attributes and raiser() is not reader:
            return f"the grader's sandbox does not allow reading {args[1]}"
        return None

    def nothing_under_proc_or_sys(event, args):
        """open, os.listdir, os.scandir, os.chdir: not on a path under /proc or /sys."""
        if not args or not isinstance(args[0], str | bytes):
            return None
        path = as_str(args[0]) if isinstance(args[0], str) else decode(args[0], "utf-8", "replace")
        if path.startswith(hidden_paths):
            return f"the grader's sandbox does not allow {event} on {path}"
        return None

    def never(event, args):
        """BLOCKED_EVENTS: refused whatever their arguments."""
        return f"the grader's sandbox does not allow {event} in a submission"

    rules = {
        "sys._getframe": frames_for_standard_readers,
        "compile": nothing_compiled_as_a_standard_module,
        **dict.fromkeys(SIGNAL_EVENTS, signals_to_itself_only),
        **dict.fromkeys(BLOCKED_EVENTS, never),
        "object.__getattr__": frames_for_the_traceback_reader,
        **dict.fromkeys(PATH_EVENTS, nothing_under_proc_or_sys),
    }

    def hook(event, args):
        rule = rules.get(event)
        refusal = None if rule is None else rule(event, args)
        if refusal is not None:
            raise RuntimeError(refusal)

    guard_code = frozenset(function.__code__
                           for function in (hook, raiser, above_the_guard, *rules.values()))
    sys.addaudithook(hook)


def collect_seldom():
    """This process's collector at GC_FIRST_THRESHOLD; the older generations as they were."""
    import gc

    gc.set_threshold(GC_FIRST_THRESHOLD, *gc.get_threshold()[1:])


def apply_limits(limits):
    """The resource limits. On Linux every one must hold; elsewhere (a student's Mac, where
    RLIMIT_AS may be refused) a limit the system refuses is left out rather than crashing."""
    required = sys.platform.startswith("linux")

    def limit(which, soft, hard):
        try:
            resource.setrlimit(which, (soft, hard))
        except (ValueError, OSError):
            if required:
                raise

    limit(resource.RLIMIT_CORE, 0, 0)
    limit(resource.RLIMIT_AS, limits["memory_bytes"], limits["memory_bytes"])
    limit(resource.RLIMIT_FSIZE, limits["file_bytes"], limits["file_bytes"])
    if limits.get("open_files"):  # each descriptor may hold a pipe's or a socket's buffers
        limit(resource.RLIMIT_NOFILE, limits["open_files"], limits["open_files"])
    limit(resource.RLIMIT_CPU, limits["zygote_cpu_s"], limits["zygote_cpu_s"] + 1)
    if limits.get("processes"):
        limit(resource.RLIMIT_NPROC, limits["processes"], limits["processes"])


def enter_jail(jail):
    """Enter the isolation the trusted side chose; nothing of the machine but what the
    submission needs stays reachable. One jail, entered three ways (`jail["how"]`):

    - "root": new mount, network, pid, IPC and UTS namespaces, the new root, then the jail's
      own uid;
    - "userns": the same namespaces inside a new user namespace (an unprivileged grader, or
      root without CAP_SYS_ADMIN after first taking the jail's own uid), then every
      capability dropped;
    - "setuid": no namespaces (a container refusing them): the jail's own uid and, where the
      kernel has Landlock, access to the same files the jail's root would hold, nothing else.

    All three end under `no_new_privs` and the seccomp filter of `install_seccomp_filter`.
    """
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def check(result, what):
        if result != 0:
            raise OSError(ctypes.get_errno(), f"jail: {what} failed")

    how = jail["how"]
    if how == "setuid":
        # The rules are made while still root: the folders above the submission need not be
        # open to the jail's uid (the submission itself is reached through the cwd alone).
        ruleset = file_rules(libc, check, jail["landlock"]) if jail.get("landlock") else None
        take_jail_uid(jail)
        check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        install_seccomp_filter(libc, check)
        if ruleset is not None:
            check(libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0), "landlock")
            os.close(ruleset)
        return
    unshare_namespaces(libc, check, jail)
    become_namespace_init()
    build_root(libc, check, jail)
    if how == "root":
        take_jail_uid(jail)
    else:
        drop_capabilities(libc, check)
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    check(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "not dumpable")  # nobody may ptrace it
    install_seccomp_filter(libc, check)


def unshare_namespaces(libc, check, jail):
    """The jail's new namespaces: inside a new user namespace for "userns" (where root without
    CAP_SYS_ADMIN first takes the jail's own uid), directly for "root". jail.py's probes run
    this very function in a forked child to learn whether the machine allows it."""
    if jail["how"] != "userns":
        check(libc.unshare(JAIL_NAMESPACES), "unshare")
        return
    if os.getuid() == 0:
        take_jail_uid(jail)  # root without CAP_SYS_ADMIN: a uid of the jail's own first
    uid, gid = os.getuid(), os.getgid()
    check(libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")  # setuid cleared it
    check(libc.unshare(CLONE_NEWUSER | JAIL_NAMESPACES), "unshare")
    for name, text in (("uid_map", f"{uid} {uid} 1"), ("setgroups", "deny"),
                       ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)


def private_tmpfs(libc, check, target, size):
    """Make every mount private to this namespace, then mount a fresh tmpfs of `size` bytes on
    `target` (a user namespace may be created yet refused every mount, as by AppArmor)."""
    check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "private mounts")
    options = f"size={size},mode=0755".encode()
    check(libc.mount(b"tmpfs", target.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options), target)


def take_jail_uid(jail):
    """The jail's own unprivileged uid and gid, with no supplementary groups."""
    os.setgroups([])
    os.setgid(jail["gid"])
    os.setuid(jail["uid"])


def become_namespace_init():
    """Fork after unsharing the pid namespace: the child is its init (pid 1) and carries on;
    this process waits and ends with it. When the init dies, the kernel kills every process
    left in the namespace, daemons included; no process inside can signal it."""
    pid = FORK()
    if pid == 0:
        return
    _, status = WAITPID(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    EXIT(code if code >= 0 else 128 - code)


def sweep_namespace():
    """As the pid namespace's init: kill and reap every other process in it (what a scenario
    left behind), so the next scenario starts alone. Outside a pid namespace, a no-op."""
    if os.getpid() != 1:
        return
    while True:
        try:
            os.kill(-1, signal.SIGKILL)  # every process of the namespace but its init
        except ProcessLookupError:
            return  # none left, not even a zombie
        try:
            WAITPID(-1, 0)  # every process here descends from this one: one is ours to reap
        except ChildProcessError:
            return


def build_root(libc, check, jail):
    """Mount a fresh tmpfs holding only the system's programs and libraries (read-only), a
    few devices, a private /tmp and the submission (read-only), and change root into it."""

    def bind(source, target, read_only=True):
        check(libc.mount(source.encode(), target.encode(), None, MS_BIND | MS_REC, None), target)
        if read_only:
            # In a user namespace a remount must keep the flags the mount already has.
            flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | kept_flags(target)
            check(libc.mount(None, target.encode(), None, flags, None), f"read-only {target}")

    root = NEW_ROOT
    private_tmpfs(libc, check, root, jail["tmp_bytes"])
    for path in visible_paths():
        if os.path.islink(path):
            os.symlink(os.readlink(path), root + path)
        elif not os.path.exists(root + path):
            os.makedirs(root + path)
            bind(path, root + path)
    os.mkdir(root + "/dev")
    for device in DEVICES:
        open(root + "/dev/" + device, "w").close()
        bind("/dev/" + device, root + "/dev/" + device, read_only=False)
    os.mkdir(root + "/tmp")
    os.chmod(root + "/tmp", 0o1777)
    os.mkdir(root + SUBMISSION_DIR, 0o755)
    bind(".", root + SUBMISSION_DIR)  # "." is still the submission: the cwd survives mounts
    os.chroot(root)
    os.chdir(SUBMISSION_DIR)


def visible_paths():
    """What the jail shows of the machine: the system's program and library folders (or the
    links to them) and the interpreter's own library folders, wherever they are."""
    paths = ["/" + name for name in SYSTEM_DIRS if os.path.lexists("/" + name)]
    return paths + [path for path in sys.path if os.path.isdir(path)]


def kept_flags(path):
    """The mount flags of `path` that a remount inside a user namespace must repeat."""
    flags = os.statvfs(path).f_flag
    return sum(ms for st, ms in STATVFS_TO_MOUNT if flags & st)


def drop_capabilities(libc, check):
    """Give up every capability (in the bounding, ambient and current sets) for good."""
    import ctypes

    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break  # past the last capability this kernel knows
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable; two 32-bit words each
    check(libc.capset(header, data), "dropping capabilities")


def install_seccomp_filter(libc, check):
    """A seccomp filter: socket() only for AF_UNIX (EACCES otherwise); no io_uring (it could
    open sockets without socket()) and no kernel keyrings (not namespaced: in a jail that keeps
    the grader's uid they are the grader's); no memory outside every limit (memfd, extended
    attributes, System V and POSIX IPC, pipe sizes); no locks, leases or notifications on shared
    inodes (SECCOMP_NUMBERS, REFUSED_FCNTL); nothing from another system call ABI."""
    import ctypes
    import platform

    numbers = SECCOMP_NUMBERS.get(platform.machine())
    if numbers is None:
        return  # an architecture this filter does not know: the rest of the jail still holds
    arch, socket_nr, fcntl_nr, refused = numbers

    def stmt(code, k):
        return (code, 0, 0, k)

    def jump(code, k, jt, jf):
        return (code, jt, jf, k)

    deny_abi = SECCOMP_RET_ERRNO | 1  # EPERM
    deny = SECCOMP_RET_ERRNO | 13  # EACCES
    program = [
        stmt(BPF_LD | BPF_W | BPF_ABS, 4),                      # arch
        jump(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
        stmt(BPF_RET | BPF_K, deny_abi),
        stmt(BPF_LD | BPF_W | BPF_ABS, 0),                      # syscall number
        jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),      # x32 ABI on x86_64
        stmt(BPF_RET | BPF_K, deny_abi),
        *(line for number in refused for line in (
            jump(BPF_JMP | BPF_JEQ | BPF_K, number, 0, 1),
            stmt(BPF_RET | BPF_K, deny))),
        jump(BPF_JMP | BPF_JEQ | BPF_K, fcntl_nr, 0, 3 + len(REFUSED_FCNTL)),
        stmt(BPF_LD | BPF_W | BPF_ABS, 24),                     # fcntl's command (low half)
        *(jump(BPF_JMP | BPF_JEQ | BPF_K, command, len(REFUSED_FCNTL) - index, 0)
          for index, command in enumerate(REFUSED_FCNTL)),
        stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        stmt(BPF_RET | BPF_K, deny),
        jump(BPF_JMP | BPF_JEQ | BPF_K, socket_nr, 1, 0),
        stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        stmt(BPF_LD | BPF_W | BPF_ABS, 16),                     # socket's domain (low half)
        jump(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1),
        stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        stmt(BPF_RET | BPF_K, deny),
    ]

    class SockFilter(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8),
                    ("k", ctypes.c_uint32)]

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(SockFilter))]

    filters = (SockFilter * len(program))(*(SockFilter(*line) for line in program))
    fprog = SockFprog(len(program), filters)
    check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "seccomp")


def file_rules(libc, check, abi):
    """A Landlock ruleset: read and execute under the folders the jail's root would hold, read
    the submission (the cwd), read and write the few devices; nothing else, no TCP, no signals
    out of the domain. Returns its fd, for landlock_restrict_self."""
    import ctypes

    fs_rights = (1 << LANDLOCK_FS_RIGHTS[min(abi, len(LANDLOCK_FS_RIGHTS)) - 1]) - 1
    attr = (ctypes.c_uint64 * 3)(fs_rights, LANDLOCK_NET_TCP if abi >= 4 else 0,
                                 LANDLOCK_SCOPES if abi >= 6 else 0)
    size = 8 * (3 if abi >= 6 else 2 if abi >= 4 else 1)
    ruleset = libc.syscall(SYS_LANDLOCK_CREATE_RULESET, attr, size, 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "jail: landlock ruleset failed")

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    def allow(path, rights):
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return
        try:
            rule = PathBeneath(rights & fs_rights, fd)
            check(libc.syscall(SYS_LANDLOCK_ADD_RULE, ruleset, 1, ctypes.byref(rule), 0),
                  f"landlock rule for {path}")
        finally:
            os.close(fd)

    for path in visible_paths():
        allow(path, LANDLOCK_READ)
    allow(os.curdir, LANDLOCK_READ)
    for device in DEVICES:
        allow("/dev/" + device, LANDLOCK_DEVICE)
    return ruleset


def compile_submission(files, directory):
    """Code objects of the submission's modules (compiling runs none of their code). Files are
    opened relative to the cwd, the submission folder, whose parents may be closed to us."""
    codes = {}
    for name in files:
        path = os.path.join(directory, name)
        with open(name, "rb") as handle:
            source = handle.read()
        codes[os.path.splitext(name)[0]] = (compile(source, path, "exec", dont_inherit=True), path)
    return codes


class PrecompiledFinder:
    """Serves the submission's modules from code objects compiled by the zygote."""

    def __init__(self, codes):
        self.codes = codes

    def find_spec(self, name, path=None, target=None):
        if name not in self.codes:
            return None
        import importlib.util

        return importlib.util.spec_from_loader(name, self, origin=self.codes[name][1])

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        code, path = self.codes[module.__name__]
        module.__file__ = path
        exec(code, module.__dict__)


def student_frames(tb, submission_files):
    """Traceback lines that point into the submission's own files, the last three.

    The audit guard lets this function's code, and no other, read a traceback's frames
    (install_guard): so it walks the traceback itself, with attribute reads only, and calls
    nothing a submission could have replaced (no traceback module, no os.path)."""
    lines = []
    while tb is not None:
        code = tb.tb_frame.f_code
        file = code.co_filename.rpartition("/")[2]
        if file in submission_files:
            lines.append({"file": file, "line": tb.tb_lineno or 0, "function": code.co_name})
        tb = tb.tb_next
    return lines[-3:]


def describe_exception(exc, submission_files):
    """Type, message and the student's own traceback lines of an exception (all read under the
    guard: student code may run here)."""
    try:
        message = str(exc)
    except BaseException:
        message = "(the exception's message could not be read)"
    if len(message) > 500:
        message = message[:500] + "..."
    return {"type": type(exc).__name__, "message": message,
            "where": student_frames(exc.__traceback__, submission_files)}


def run_child(request, config, helpers, result_fd):
    """In a forked child: import the submission, run one scenario, reply; never returns."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # the request pipe stays with the zygote
    os.close(devnull)
    cpu = request.get("cpu_s", 5)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    files = set(config["files"])
    install_guard(student_frames)  # last: from here on, student code may run
    try:
        module = __import__(config["module"])
        name = config["class_name"]
        target = getattr(module, name) if name else module
    except BaseException as exc:  # the student's module may raise anything at import
        reply = {"status": "import-error", **describe_exception(exc, files)}
    else:
        if request.get("probe"):
            reply = {"status": "ready"}
        else:
            reply = run_scenario(request, target, helpers, files)
    try:
        write_frame(result_fd, reply)
    except (TypeError, ValueError, OverflowError) as exc:
        write_frame(result_fd, {"status": "bad-result", "reason": str(exc)[:200]})
    # Nothing to flush (the zygote runs with -u: output is written as it is printed), and no
    # flush: sys.stdout may be the submission's own object, whose flush() can block forever.
    EXIT(0)


def run_scenario(request, target, helpers, files):
    """The reply for one scenario run against the student's class or module."""
    try:
        namespace = dict(helpers)
        exec(request["code"], namespace)
        value = namespace[request["name"]](target, **request["params"])
        return {"status": "ok", "value": value}
    except helpers["WrongType"] as exc:
        return {"status": "wrong-type", "quantity": exc.quantity,
                "actual_type": exc.actual_type, "expected_type": exc.expected_type}
    except BaseException as exc:  # the student's code may raise anything, SystemExit included
        return {"status": "exception", **describe_exception(exc, files)}


def fork_child(request, config, helpers, result_fd):
    """Fork, run the request in the child, wait, and report how the child ended."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = FORK()
    if pid == 0:
        run_child(request, config, helpers, result_fd)
    _, status = WAITPID(pid, 0)
    sweep_namespace()
    write_frame(result_fd, {"status": "exited", "code": os.waitstatus_to_exitcode(status)})


RESULT_FD = 3  # where a submission's zygote writes its replies (the shard zygote puts it there)


def main():
    """The shard's zygote: warm once, then fork one submission zygote per request.

    Its first frame on stdin gives the control socket's fd and the graph helpers' source.
    A request `fork` on the control socket carries four descriptors (the submission's request
    pipe, result pipe, output pipe and folder); the reply is the new zygote's pid. A request
    `wait <pid>` reaps that zygote once the trusted side has killed it: until then its pid
    stays its own, so a signal the trusted side sends it reaches no other process. This process
    never enters a jail, never limits itself and never runs student code: every classmate's
    zygote is forked from the same state, and whatever one of them changes dies with it.
    """
    import socket

    config = read_frame(sys.stdin.buffer)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # no process of the grader's uid may ptrace it
    del libc
    for name in WARM_MODULES:
        __import__(name)
    collect_seldom()
    import importlib.util  # noqa: F401 - warm for the finder
    import platform  # noqa: F401 - warm for the seccomp filter

    platform.machine()
    # Trusted work done once here, inherited by every zygote: the graph helpers.
    helpers = {"__name__": "grader_graph_helpers"}
    exec(compile(config["helpers_source"], "<graph helpers>", "exec"), helpers)
    control = socket.socket(fileno=config["control_fd"])
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 64, 4)
        except OSError:
            return
        if not message:
            return
        if message.startswith(b"wait "):  # a zygote the trusted side has killed: reap it
            try:
                WAITPID(int(message[5:]), 0)
            except ChildProcessError:
                pass
            control.sendall(b"0\n")
            continue
        pid = FORK()
        if pid == 0:
            control.close()  # a submission never holds the way to its classmates' zygotes
            become_submission_zygote(fds)
            serve_submission(helpers)
            EXIT(0)
        for fd in fds:
            os.close(fd)
        control.sendall(b"%d\n" % pid)


def become_submission_zygote(fds):
    """In the forked zygote: its own session, its submission's folder as the cwd, its own
    pipes as stdin, stdout, stderr and RESULT_FD, and no other descriptor at all."""
    stdin_fd, result_fd, output_fd, folder_fd = fds
    os.setsid()
    os.fchdir(folder_fd)
    os.dup2(stdin_fd, 0)
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
    os.dup2(result_fd, RESULT_FD)  # last: any of the others may have had number 3
    os.closerange(RESULT_FD + 1, os.sysconf("SC_OPEN_MAX"))


def serve_submission(helpers):
    """One submission's zygote: limit itself, enter the jail, compile the submission's files
    WITHOUT running them, probe that they import, then fork a child per scenario."""
    stdin = open(0, "rb", closefd=False)  # a reader of its own pipe (fd 0 was the shard's)
    config = read_frame(stdin)
    if config is None:
        return
    result_fd = RESULT_FD
    if config.get("jail"):
        enter_jail(config["jail"])
    apply_limits(config["limits"])
    try:
        codes = compile_submission(config["files"], os.getcwd())
        # The other modules the grader put in the folder (a lab's support files), served the
        # same way: the path finder would look for them by absolute path, through parents
        # that may be closed to the jail's uid (a TMPDIR under a 0700 folder, at `uid`).
        given = [name for name in config.get("given", ()) if name not in config["files"]]
        codes.update(compile_submission(given, os.getcwd()))
    except OSError:  # a file the grader gave cannot be read: the grader's fault, said first
        write_frame(result_fd, {"status": "unreadable"})
        write_frame(result_fd, {"status": "exited", "code": 0})
        return
    except (SyntaxError, ValueError) as exc:
        # A SyntaxError's str() names the file and line ("(value.py, line 65)"): its `msg`
        # alone, since `where` says where, in the student's own terms (a notebook's cell).
        message = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        detail = {"type": type(exc).__name__, "message": message[:500], "where": []}
        if isinstance(exc, SyntaxError):
            detail["where"] = [{"file": os.path.basename(exc.filename or ""),
                                "line": exc.lineno or 0}]
        write_frame(result_fd, {"status": "import-error", **detail})
        write_frame(result_fd, {"status": "exited", "code": 0})
        return
    write_frame(result_fd, {"status": "compiled"})  # before any student code can write here
    sys.meta_path.insert(0, PrecompiledFinder(codes))
    sys.path.append(os.curdir)  # for support files imported by name (the cwd: see above)
    compiled = {}
    fork_child({"probe": True}, config, helpers, result_fd)
    while True:
        request = read_frame(stdin)
        if request is None:
            return
        source = request["source"]
        if source not in compiled:
            compiled[source] = compile(source, "<scenario>", "exec")
        request["code"] = compiled[source]
        fork_child(request, config, helpers, result_fd)


if __name__ == "__main__":  # the zygote runs this file with `python -c`; jail.py imports it
    main()
    EXIT(0)
