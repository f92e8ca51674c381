#!/usr/bin/env python3
"""repl.py — the interactive prompt: a session piped into `tfs repl` (exact output), and on a pseudo-terminal (libedit, history, Ctrl-C, Ctrl-D)."""
import os
import pty
import select
import subprocess
import sys
import tempfile
import time

failures = 0


def expect(name, cond, detail=""):
    global failures
    if not cond:
        failures += 1
        print("FAIL %s\n%s" % (name, detail))


# One session: definitions persist from input to input, values echo, errors
# are reported where they happen and the session goes on.
SESSION = '''k = 1
def f():
    return k

k = 2
f()
x = tf.constant([1.0, 2.0])
x * 2.0
None
"text"
[1, (2, 3)]
y = undefined_name
tf.reshape(x, [3])
def inner():
    return 1 / 0

def outer():
    return inner()

outer()
print("still here", k)
if True:
  1 +

@tf.function
def collatz(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps

collatz(tf.constant(27))
collatz(tf.constant(6))
collatz.experimental_get_tracing_count()
for i in range(2):
    i * 10

class Scale:
    def __init__(self, s):
        self.s = tf.Variable(s)
    def __call__(self, t):
        return t * self.s

sc = Scale(3.0)
sc(x)
import helper
helper.twice(tf.constant(4))
import helper
from helper import K
K + 1
d = tf.keras.layers.Dense(1, kernel_initializer="ones")
d(tf.ones([1, 2]))
isinstance(tf.keras.layers.Dense(2), tf.keras.layers.Dense) and isinstance(d, tf.keras.layers.Dense)
raise ValueError("boom")
z = 7; z
while z > 5:
    z -= 1
'''

STDOUT = '''2
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([2., 4.], dtype=float32)>
'text'
[1, (2, 3)]
still here 2
<tf.Tensor: shape=(), dtype=int32, numpy=111>
<tf.Tensor: shape=(), dtype=int32, numpy=8>
1
0
10
<tf.Tensor: shape=(2,), dtype=float32, numpy=array([3., 6.], dtype=float32)>
loading helper
<tf.Tensor: shape=(), dtype=int32, numpy=8>
6
<tf.Tensor: shape=(1, 1), dtype=float32, numpy=array([[2.]], dtype=float32)>
True
7
'''

STDERR = '''>>> >>> ... ... >>> >>> >>> >>> >>> >>> >>> >>> <stdin>:1:5: error: name 'undefined_name' is not defined
y = undefined_name
    ^
>>> <stdin>:1:1: error: InvalidArgumentError: Input to reshape is a tensor with 2 values, but the requested shape has 3
tf.reshape(x, [3])
^
>>> ... ... >>> ... ... >>> Traceback (most recent call last):
  <stdin>:1 in <module>
  <stdin>:2 in outer
  <stdin>:2 in inner
<stdin>:2:12: error: ZeroDivisionError: division by zero
    return 1 / 0
           ^
>>> >>> ... ... <stdin>:2:6: error: expected an expression
  1 +
     ^
>>> ... ... ... ... ... ... ... ... ... ... >>> >>> >>> >>> ... ... >>> ... ... ... ... ... >>> >>> >>> >>> >>> >>> >>> >>> >>> >>> >>> <stdin>:1:1: error: ValueError: boom
raise ValueError("boom")
^
>>> >>> ... ... '''


def piped(tfs, tmp):
    mods = os.path.join(tmp, "mods")
    os.mkdir(mods)
    with open(os.path.join(mods, "helper.tfs"), "w") as f:
        f.write('print("loading helper")\ndef twice(x):\n    return 2 * x\nK = 5\n')
    env = dict(os.environ, TFS_PATH=mods, HOME=tmp)
    p = subprocess.run([tfs, "repl"], input=SESSION.encode(), capture_output=True, timeout=900, env=env, cwd=tmp)
    out, err = p.stdout.decode(), p.stderr.decode()
    expect("piped session status", p.returncode == 0, "rc=%d" % p.returncode)
    expect("piped session stdout", out == STDOUT, out)
    expect("piped session stderr", err == STDERR, err)
    # Off a terminal no history is kept.
    expect("no history off a terminal", not os.path.exists(os.path.join(tmp, ".tfs_history")))
    # `tfs repl` takes no arguments.
    p = subprocess.run([tfs, "repl", "x.tfs"], capture_output=True, timeout=60)
    expect("repl usage", p.returncode == 2 and b"usage" in p.stderr, str(p))


class Term:
    """tfs on a pseudo-terminal: send keys, read what the terminal shows."""

    def __init__(self, argv, home):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ["HOME"] = home
            os.environ.pop("TFS_PATH", None)
            os.execv(argv[0], argv)
        self.out = b""

    def read_until(self, text, timeout=240):
        end = time.time() + timeout
        while text.encode() not in self.out and time.time() < end:
            r, _, _ = select.select([self.fd], [], [], 0.1)
            if r:
                try:
                    data = os.read(self.fd, 4096)
                except OSError:
                    return False
                if not data:
                    return False
                self.out += data
        return text.encode() in self.out

    def send(self, keys, then):
        """Type keys, wait until the screen shows `then` (beyond what it showed)."""
        mark = len(self.out)
        os.write(self.fd, keys)
        end = time.time() + 60
        while then.encode() not in self.out[mark:] and time.time() < end:
            r, _, _ = select.select([self.fd], [], [], 0.1)
            if r:
                try:
                    data = os.read(self.fd, 4096)
                except OSError:
                    break
                if not data:
                    break
                self.out += data
        return self.out[mark:].decode(errors="replace")

    def finish(self):
        try:
            while True:
                r, _, _ = select.select([self.fd], [], [], 5)
                if not r:
                    break
                data = os.read(self.fd, 4096)
                if not data:
                    break
                self.out += data
        except OSError:
            pass
        # Never wait forever: a prompt that did not leave is killed (and fails).
        end = time.time() + 60
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                break
            if time.time() > end:
                os.kill(self.pid, 9)
                _, status = os.waitpid(self.pid, 0)
                break
            time.sleep(0.1)
        os.close(self.fd)
        return status


def terminal(tfs, tmp):
    home = os.path.join(tmp, "home")
    os.mkdir(home)
    with open(os.path.join(home, ".tfs_history"), "w") as f:
        f.write("a = 40 + 2\n")
    t = Term([tfs], home)   # no arguments on a terminal: the prompt
    expect("banner", t.read_until(">>> "), t.out.decode(errors="replace"))
    expect("banner text", t.out.startswith(b"tfs ") and b"Ctrl-D exits" in t.out, t.out)
    # Up-arrow recalls the previous session's line; Enter runs it.
    shown = t.send(b"\x1b[A\r", "\r\n>>> ")
    expect("history recalled from the file", "a = 40 + 2" in shown, repr(shown))
    shown = t.send(b"a\r", "42\r\n>>> ")
    expect("echo", "\r\n42\r\n" in shown, repr(shown))
    shown = t.send(b"def g(n):\r", "\r\n... ")
    expect("continuation prompt", shown.endswith("... "), repr(shown))
    t.send(b"    return n + a\r", "\r\n... ")
    shown = t.send(b"\r", "\r\n>>> ")
    shown = t.send(b"g(tf.constant(1))\r", "\r\n>>> ")
    expect("definition persists", "<tf.Tensor: shape=(), dtype=int32, numpy=43>" in shown, repr(shown))
    # Line editing: Ctrl-A goes to the start of the line.
    shown = t.send(b"(1)\x01len\r", "^\r\n>>> ")
    expect("line editing", "\r\n1\r\n" not in shown and "TypeError: object of type 'int' has no len()" in shown, repr(shown))
    shown = t.send(b"nope\r", "^\r\n>>> ")
    expect("error keeps the session", "<stdin>:1:1: error: name 'nope' is not defined" in shown, repr(shown))
    # Ctrl-C drops the unfinished line and prompts again.
    shown = t.send(b"if a:\r", "\r\n... ")
    shown = t.send(b"\x03", "\r\n>>> ")
    expect("Ctrl-C", "KeyboardInterrupt" in shown, repr(shown))
    shown = t.send(b"a + 1\r", "43\r\n>>> ")
    expect("after Ctrl-C", "\r\n43\r\n" in shown, repr(shown))
    # Ctrl-D: leave.  It is typed the moment the prompt shows: libedit
    # draws the prompt before it switches the terminal to raw mode, and a
    # Ctrl-D in between used to be lost (compiler/repl.c key_mode).
    os.write(t.fd, b"\x04")
    status = t.finish()
    expect("Ctrl-D exits 0", os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, str(status) + " " + repr(t.out[-300:]))
    hist = open(os.path.join(home, ".tfs_history")).read()
    expect("history file", hist.startswith("a = 40 + 2\na = 40 + 2\na\ndef g(n):\n    return n + a\ng(tf.constant(1))\n")
           and hist.endswith("nope\nif a:\na + 1\n"), repr(hist))
    leftovers = [n for n in os.listdir(home) if n != ".tfs_history"]
    expect("history written atomically (no temporary left)", leftovers == [], str(leftovers))
    # A history file that cannot be written (HOME is not a directory): one
    # warning, the session goes on.
    notdir = os.path.join(tmp, "file")
    open(notdir, "w").close()
    t = Term([tfs, "repl"], notdir)
    t.read_until(">>> ")
    shown = t.send(b"1 + 1\r", "2\r\n>>> ")
    shown += t.send(b"2 + 2\r", "4\r\n>>> ")
    os.write(t.fd, b"\x04")
    status = t.finish()
    expect("unwritable history", shown.count("tfs: warning: cannot write the history file '%s/.tfs_history': "
                                             "Not a directory" % notdir) == 1 and "\r\n4\r\n" in shown
           and os.WEXITSTATUS(status) == 0, repr(shown))


def ctrl_d_at_once(tfs, tmp):
    """Ctrl-D typed the moment `>>> ` shows, on a fresh prompt and after a
    statement, several times: before the fix about one session in five kept
    waiting (the key met the cooked line discipline)."""
    lost = 0
    for i in range(8):
        t = Term([tfs, "repl"], tmp)
        t.read_until(">>> ")
        if i % 2:
            t.send(b"1 + 1\r", "2\r\n>>> ")
        os.write(t.fd, b"\x04")
        status = t.finish()
        lost += not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0)
    expect("Ctrl-D at once leaves, 8 sessions", lost == 0, "%d sessions kept waiting" % lost)


def main():
    tfs = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        piped(tfs, tmp)
    with tempfile.TemporaryDirectory() as tmp:
        terminal(tfs, tmp)
    with tempfile.TemporaryDirectory() as tmp:
        ctrl_d_at_once(tfs, tmp)
    print("repl: %d failure(s)" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
