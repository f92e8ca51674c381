#!/usr/bin/env python3
"""objcache.py — tfs run's object cache (compiler/objcache.c): cached runs print what uncached ones do; damaged,
foreign and stale entries (objects and the .u records of library units) are detected and rebuilt; an edited program
reuses its library modules' units unparsed; an unusable cache directory falls back to compiling; many processes
filling one cache at once agree; TFS_NO_CACHE=1 and the size limit are honoured.  tfsc -o links the same library
units from the cache (filling it when cold), its executable printing what tfs run does.

usage: objcache.py TFS   (every cache lives in a temporary directory, never the user's home)"""
import os
import resource
import struct
import subprocess
import sys
import tempfile
import zlib

failures = 0
checks = 0

# tfcore compiled in (tf.nest, reduce_std), a tf.function (under --eager its body is the second, lazy unit),
# a traceback through library code, and an uncaught error ending the run.
PROG = '''
@tf.function
def f(x):
''' + "    x = x * 1.0 + 0.0\n" * 300 + '''    return x * 2.0 + 1.0

print(f(tf.constant([1.0, 2.0])))
print(tf.nest.flatten({"a": 1, "b": [2, 3]}))
print(tf.math.reduce_std(tf.constant([1.0, 2.0, 4.0])))
try:
    tf.nest.assert_same_structure([1], [1, 2])
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])
print(tf.nest.map_structure(lambda v: v + 1, [1, "x"]))
'''
# a second program whose object differs (tfcore makes its unit big enough to be cached)
OTHER = 'print(tf.nest.flatten([1, [2, (3,)]]))\n'

TRAILER = 56  # magic 8, length 8, key 32, CRC-32 of the object as 8 bytes


def expect(name, cond, detail=""):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("FAIL %s %s" % (name, detail))


def entries(cache, ext=".o"):
    d = os.path.join(cache, "tfs")
    return sorted(n for n in os.listdir(d) if n.endswith(ext)) if os.path.isdir(d) else []


def all_whole(cache):
    """Every object entry checks out and no temporary is left."""
    d = os.path.join(cache, "tfs")
    return all(whole(os.path.join(d, n)) for n in entries(cache)) and entries(cache, "") == sorted(entries(cache, ".o") + entries(cache, ".u")) \
        if os.path.isdir(d) else True


def trace(err):
    """TFS_CACHE_TRACE's lines: (event, what)."""
    return [tuple(l.split()[1:3]) for l in err.splitlines() if l.startswith("tfs-cache: ")]


def whole(path):
    """The entry's trailer checks out: our own reading of the format objcache.c writes."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) <= TRAILER:
        return False
    obj, tr = data[:-TRAILER], data[-TRAILER:]
    magic, n = tr[:8], struct.unpack("<Q", tr[8:16])[0]
    key, crc = tr[16:48].hex(), struct.unpack("<Q", tr[48:56])[0]
    name = os.path.basename(path)
    return (magic == b"TFSOBJ1\0" and n == len(obj) and name == key + ".o" and obj[:4] == b"\x7fELF"
            and zlib.crc32(obj) == crc)


def main():
    tfs = os.path.abspath(sys.argv[1])
    env0 = {k: v for k, v in os.environ.items() if k not in ("TFS_NO_CACHE", "TFS_CACHE_MAX_MB")}
    with tempfile.TemporaryDirectory() as tmp:
        prog, other = os.path.join(tmp, "prog.tfs"), os.path.join(tmp, "other.tfs")
        with open(prog, "w") as f:
            f.write(PROG)
        with open(other, "w") as f:
            f.write(OTHER)

        def run(cache, *args, path=prog, fsize=None, **extra):
            env = dict(env0, XDG_CACHE_HOME=cache, HOME=os.path.join(tmp, "nohome"), **extra)
            limit = (lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))) if fsize else None
            p = subprocess.run([tfs, "run", *args, path], capture_output=True, timeout=300, env=env, cwd=tmp, preexec_fn=limit)
            return p.returncode, p.stdout.decode(), p.stderr.decode()

        def start(cache, *args, path=prog):
            env = dict(env0, XDG_CACHE_HOME=cache, HOME=os.path.join(tmp, "nohome"))
            return subprocess.Popen([tfs, "run", *args, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp)

        cache = os.path.join(tmp, "c1")
        # The reference: no cache at all.
        ref = run(cache, TFS_NO_CACHE="1")
        ref_eager = run(cache, "--eager", TFS_NO_CACHE="1")
        expect("reference runs", ref[0] == 1 and "ValueError:" in ref[1] and "TypeError" in ref[2] and ref_eager[1] == ref[1], repr(ref) + repr(ref_eager))
        expect("TFS_NO_CACHE writes nothing", entries(cache, "") == [], repr(entries(cache, "")))

        # Cold, then warm: the same output; entries for the main unit and each library module's unit (tfcore_*),
        # with a record (.u) per library unit; then one more for --eager's lazy unit.
        _, _, err = run(cache, TFS_CACHE_TRACE="1")
        units = {w for e, w in trace(err) if e == "miss" and w != "program"}
        cold = entries(cache)
        expect("cold run stores the program's and the library units' entries", len(cold) == len(units) + 1 and len(units) >= 1
               and all_whole(cache) and len(entries(cache, ".u")) >= len(units), repr((cold, units)))
        expect("warm run", run(cache) == ref)
        expect("warm run adds nothing", entries(cache) == cold, repr(entries(cache)))
        _, _, err = run(cache, TFS_CACHE_TRACE="1")
        expect("warm run parses no cached library module", units and all(("source-hit", u) in trace(err) for u in units)
               and not any(e in ("miss", "source-miss") and w in units for e, w in trace(err)), err)
        expect("eager cold", run(cache, "--eager") == ref_eager)
        both = entries(cache)
        expect("the lazy unit is an entry too", len(both) == len(cold) + 1 and all_whole(cache), repr(both))
        expect("eager warm", run(cache, "--eager") == ref_eager and entries(cache) == both)

        # An edited program: only its own unit is new; every library unit is reused, its module not parsed.
        edited = os.path.join(tmp, "edited.tfs")
        with open(edited, "w") as f:
            f.write(PROG.replace("print(f(tf.constant([1.0, 2.0])))", "print(f(tf.constant([3.0, 2.0])))"))
        ref_edited = run(cache, path=edited, TFS_NO_CACHE="1")
        rc, out, err = run(cache, path=edited, TFS_CACHE_TRACE="1")
        expect("edited program runs", (rc, out) == ref_edited[:2] and "[7. 5.]" in out, repr((rc, out)))
        expect("edited program reuses the library units", all(("source-hit", u) in trace(err) for u in units)
               and [w for e, w in trace(err) if e == "miss"] == ["program"], err)
        expect("edited program adds one entry", len(entries(cache)) == len(both) + 1 and all_whole(cache), repr(entries(cache)))

        # A damaged or truncated record is ignored (the module parsed), and rewritten whole, atomically.
        recs = entries(cache, ".u")
        rec = os.path.join(cache, "tfs", recs[0])
        with open(rec, "rb") as f:
            good_rec = f.read()
        for what, data in {"truncated": good_rec[: len(good_rec) // 2], "empty": b"", "garbage": b"x" * 200,
                           "bad magic": b"Z" + good_rec[1:], "missing NUL": good_rec[:-1]}.items():
            with open(rec, "wb") as f:
                f.write(data)
            expect("damaged record (%s): same output" % what, run(cache) == ref)
            with open(rec, "rb") as f:
                expect("damaged record (%s): rewritten" % what, f.read() == good_rec)
            expect("damaged record (%s): nothing else left" % what, entries(cache, ".u") == recs and all_whole(cache))
        # A library unit's damaged object behind a good record: detected, the module parsed, the object rebuilt.
        for n in entries(cache):
            path = os.path.join(cache, "tfs", n)
            with open(path, "rb") as f:
                data = f.read()
            with open(path, "wb") as f:
                f.write(data[: len(data) // 3])
        expect("every object truncated: same output", run(cache) == ref)
        expect("every object truncated: what the run uses is rebuilt",
               set(cold) <= set(entries(cache)) and all(whole(os.path.join(cache, "tfs", n)) for n in cold), repr(entries(cache)))

        # Damage: each kind is detected (the run prints the same) and the entry rebuilt whole.
        entry = os.path.join(cache, "tfs", cold[0])
        with open(entry, "rb") as f:
            good = f.read()
        damages = {
            "truncated": good[: len(good) // 2],
            "trailer cut": good[:-10],
            "empty": b"",
            "flipped byte": good[:1000] + bytes([good[1000] ^ 0x40]) + good[1001:],
            "zeroed ELF header": b"\0" * 64 + good[64:],
            "garbage": b"not an object file\n" * 100,
            "foreign entry": open(os.path.join(cache, "tfs", [n for n in both if n != cold[0]][0]), "rb").read(),
        }
        for what, data in damages.items():
            with open(entry, "wb") as f:
                f.write(data)
            expect("damaged entry (%s): same output" % what, run(cache) == ref)
            with open(entry, "rb") as f:
                expect("damaged entry (%s): rebuilt" % what, f.read() == good)
        # a directory where the entry should be: compiled all the same
        os.remove(entry)
        os.mkdir(entry)
        expect("entry is a directory", run(cache) == ref)
        os.rmdir(entry)
        # a stale temporary of a dead writer does no harm
        with open(entry + ".tmp-dead00", "wb") as f:
            f.write(good[:100])
        expect("stale temporary", run(cache) == ref)

        # No usable directory: a file where it should be, a cache home that cannot be made: compiled in memory.
        blocker = os.path.join(tmp, "afile")
        with open(blocker, "w") as f:
            f.write("x")
        expect("cache home is a file", run(blocker) == ref)
        expect("cache home under a file", run(os.path.join(blocker, "sub")) == ref)
        expect("relative XDG_CACHE_HOME ignored (HOME used)", run("relative/dir") == ref
               and len(entries(os.path.join(tmp, "nohome", ".cache"))) == len(cold))
        # A file size limit (a full disk alike) stops the writes it hits: compiled in memory, nothing damaged left behind.
        full = os.path.join(tmp, "c5")
        expect("file size limit", run(full, fsize=100000) == ref and all_whole(full) and len(entries(full)) < len(cold), repr(entries(full)))
        if os.geteuid() != 0:   # root writes anywhere: the read-only case needs another user
            ro = os.path.join(tmp, "ro")
            run(ro)
            os.chmod(os.path.join(ro, "tfs"), 0o555)
            expect("read-only cache, entry present", run(ro) == ref)
            expect("read-only cache, entry missing", run(ro, path=other)[0] == 0)
            os.chmod(os.path.join(ro, "tfs"), 0o755)

        # a sanitized tfsc cannot link executables (tcc-built objects against the sanitizer runtime): skipped there
        if os.environ.get("TFS_SANITIZED"):
            print("objcache: tfsc -o cases skipped in a sanitized build")
        else:
            # tfsc -o: the library units come from the cache (filled when cold; shared with tfs run), the executable prints
            # what tfs run does; a damaged entry is rebuilt; tfsc and tfs run at once on one empty cache agree.
            tfsc = os.path.join(os.path.dirname(tfs), "tfsc")

            def build(cache, out, **extra):
                env = dict(env0, XDG_CACHE_HOME=cache, HOME=os.path.join(tmp, "nohome"), **extra)
                p = subprocess.run([tfsc, prog, "-o", out], capture_output=True, timeout=300, env=env, cwd=tmp)
                return p.returncode, p.stderr.decode()

            def run_exe(exe):
                p = subprocess.run([exe], capture_output=True, timeout=300, cwd=tmp, env=env0)
                return p.returncode, p.stdout.decode(), p.stderr.decode()

            exe_ref = os.path.join(tmp, "exe_ref")
            expect("tfsc without a cache", build(cache, exe_ref, TFS_NO_CACHE="1")[0] == 0)
            ref_exe = run_exe(exe_ref)
            expect("tfsc's executable prints what tfs run does", ref_exe[:2] == ref[:2] and "TypeError" in ref_exe[2], repr(ref_exe))
            ec = os.path.join(tmp, "c7")
            rc, err = build(ec, os.path.join(tmp, "exe_cold"), TFS_CACHE_TRACE="1")
            xunits = {w for e, w in trace(err) if e == "miss"}
            # (keys cover the executable's build id: tfsc's entries are its own, not tfs run's)
            expect("tfsc cold fills the cache with the library units", rc == 0 and xunits == units
                   and len(entries(ec)) == len(units) and all_whole(ec), repr((err, entries(ec))))
            expect("tfsc cold executable", run_exe(os.path.join(tmp, "exe_cold")) == ref_exe)
            rc, err = build(ec, os.path.join(tmp, "exe_warm"), TFS_CACHE_TRACE="1")
            expect("tfsc warm reuses every library unit unparsed", rc == 0 and all(("source-hit", u) in trace(err) for u in units)
                   and not any(e in ("miss", "source-miss") and w in units for e, w in trace(err)), err)
            expect("tfsc warm executable", run_exe(os.path.join(tmp, "exe_warm")) == ref_exe and len(entries(ec)) == len(units))
            for n in entries(ec):
                with open(os.path.join(ec, "tfs", n), "r+b") as f:
                    f.truncate(os.path.getsize(f.name) // 3)
            rc, err = build(ec, os.path.join(tmp, "exe_damaged"))
            expect("tfsc with damaged entries: rebuilt silently", rc == 0 and err == "" and all_whole(ec) and len(entries(ec)) == len(units), err)
            expect("tfsc with damaged entries: executable", run_exe(os.path.join(tmp, "exe_damaged")) == ref_exe)
            mixed = os.path.join(tmp, "c8")
            env = dict(env0, XDG_CACHE_HOME=mixed, HOME=os.path.join(tmp, "nohome"))
            procs = [subprocess.Popen([tfsc, prog, "-o", os.path.join(tmp, "exe_m%d" % i)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp)
                     for i in range(3)] + [start(mixed) for _ in range(3)]
            outs = [(p.wait(timeout=600), p.stdout.read().decode(), p.stderr.read().decode()) for p in procs]
            for p in procs:
                p.stdout.close()
                p.stderr.close()
            expect("tfsc and tfs run at once: builds succeed, runs agree", [o[0] for o in outs[:3]] == [0] * 3 and outs[3:] == [ref] * 3, repr(outs))
            expect("tfsc and tfs run at once: executables agree", all(run_exe(os.path.join(tmp, "exe_m%d" % i)) == ref_exe for i in range(3)))
            expect("tfsc and tfs run at once: entries whole", all_whole(mixed) and len(entries(mixed)) == len(cold) + len(units), repr(entries(mixed)))

        # Many processes at once on an empty cache: all print the reference, every entry is whole, no temporary is left.
        conc = os.path.join(tmp, "c2")
        procs = [start(conc) for _ in range(6)] + [start(conc, path=other) for _ in range(3)] + [start(conc, "--eager") for _ in range(3)]
        outs = [(p.wait(timeout=600), p.stdout.read().decode(), p.stderr.read().decode()) for p in procs]
        for p in procs:
            p.stdout.close()
            p.stderr.close()
        ref_other = run(conc, path=other, TFS_NO_CACHE="1")
        expect("concurrent runs agree", outs[:6] == [ref] * 6 and outs[6:9] == [ref_other] * 3 and outs[9:] == [ref_eager] * 3,
               repr(outs))
        names = entries(conc)
        seq = os.path.join(tmp, "c6")
        for args, path in (((), prog), ((), other), (("--eager",), prog)):
            run(seq, *args, path=path)
        expect("concurrent entries whole, as one run after another makes them", names == entries(seq) and all_whole(conc)
               and entries(conc, ".u") == entries(seq, ".u"), repr((names, entries(seq))))
        with open(os.path.join(conc, "tfs", entries(conc, ".u")[0]), "rb") as f, open(os.path.join(seq, "tfs", entries(seq, ".u")[0]), "rb") as g:
            expect("concurrent records whole", f.read() == g.read())

        # A unit too small to be worth hashing (print(1)) is compiled each time, with no entry.
        tiny = os.path.join(tmp, "tiny.tfs")
        with open(tiny, "w") as f:
            f.write("print(1)\n")
        small = os.path.join(tmp, "c4")
        expect("tiny program", run(small, path=tiny) == (0, "1\n", "") and entries(small) == [], repr(entries(small)))

        # The size limit: with 0 MB only the entry just written stays.
        lim = os.path.join(tmp, "c3")
        run(lim, TFS_CACHE_MAX_MB="0")
        first = entries(lim)
        expect("limit: other program", run(lim, path=other, TFS_CACHE_MAX_MB="0") == ref_other)
        left = entries(lim)
        expect("limit prunes all but the entry just written", len(first) == 1 and len(left) == 1 and left != first, repr((first, left)))
        expect("limit: runs again", run(lim, TFS_CACHE_MAX_MB="0") == ref)
    print("%d passed, %d failed" % (checks - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
