"""Rows of docs/d-language.md's reference checklist (issue 35), each a
program and what DTrace does with it: compile errors with DTrace's tag
(-x errtags) and message, values on the host VM.  No guest needed.
"""
import subprocess

import pytest

from test_compiler import dtrace  # noqa: F401 (fixture)

pytestmark = pytest.mark.host


def _run(dtrace, *args):
    return subprocess.run([dtrace] + list(args), capture_output=True, text=True)


# (program, tag, message): what `dtrace -x errtags -e -n PROGRAM` refuses
ERRORS = [
    # the comma operator: actions are no operands (dt_cook_op2)
    ("BEGIN { x = (trace(1), 2); }", "D_OP_ACT", "operator , operands cannot be actions"),
    ("BEGIN { x = 1, trace(2); }", "D_OP_ACT", "operator , operands cannot be actions"),
    ("BEGIN { trace(1), x = 2; }", "D_OP_ACT", "operator , operands cannot be actions"),
    # a function type has no size
    ("BEGIN { trace(sizeof (int (int))); }", "D_SIZEOF_TYPE",
     "cannot apply sizeof to an expression of type int ()"),
    # a struct known only by its tag: no operator needing its layout
    ("struct f; struct f *p; BEGIN { x = *p; }", "D_OP_INCOMPLETE",
     "operator * cannot be applied to a forward declaration: no struct f definition is available"),
    ("struct f; struct f *p; BEGIN { x = p[1]; }", "D_OP_INCOMPLETE",
     "operator * cannot be applied to a forward declaration: no struct f definition is available"),
    ("union u; union u *p; BEGIN { x = p->a; }", "D_OP_INCOMPLETE",
     "operator -> cannot be applied to a forward declaration: no union u definition is available"),
    ("struct f; struct f *p; BEGIN { x = sizeof (*p); }", "D_OP_INCOMPLETE", "operator *"),
    ("struct f; BEGIN { x = sizeof (struct f); }", "D_SIZEOF_TYPE",
     "cannot apply sizeof to an expression of type struct f"),
    ("int (*fp)(int); BEGIN { x = *fp; }", "D_DEREF_FUNC", "cannot dereference pointer to function"),
    # inline associative arrays (dt_node_inline, dt_idcook_sign)
    ("inline int a[4] = 1;", "D_DECL_ARRNULL", "inline declaration cannot be of scalar array type: a"),
    ("inline int a[] = 1;", "D_DECL_ARRNULL", "inline declaration requires array tuple signature: a"),
    ("inline int sq[int x] = x * x; BEGIN { trace(sq); }", "D_IDENT_BADREF",
     "sq is an inline associative array: use sq[key]"),
    ("inline int sq[int x] = x * x; BEGIN { trace(sq[1, 2]); }", "D_PROTO_LEN",
     "sq[ ] prototype mismatch: 2 args passed, 1 expected"),
    ('inline int sq[int x] = x * x; BEGIN { trace(sq["a"]); }', "D_PROTO_ARG",
     "sq[ ] argument #1 is incompatible with prototype:\n\tprototype: int\n\t argument: string"),
    ("inline int r[int x] = r[x];", "D_IDENT_UNDEF", "failed to resolve r"),
]


@pytest.mark.parametrize("prog,tag,msg", ERRORS, ids=[p for p, _, _ in ERRORS])
def test_refused(dtrace, prog, tag, msg):
    r = _run(dtrace, "-x", "errtags", "-e", "-n", prog)
    assert r.returncode == 1, r.stderr
    assert f"[{tag}]" in r.stderr and msg in r.stderr, r.stderr


def test_flags_P_m_f_enable(dtrace):
    """dtrace -P/-m/-f outside -l: each a program like -n's, the given
    parts ending at the provider, module or function field (DTrace's
    probe specs), compiled in order with -n."""
    r = _run(dtrace, "-x", "hostvm", "-q", "-P", 'dtrace { printf("%s\\n", probename); }',
             "-n", "BEGIN { exit(0); }")
    assert r.returncode == 0 and r.stdout == "BEGIN\nEND\n\n", (r.stdout, r.stderr)
    for flag, arg, desc in [("-P", "syscall", "syscall:::"),
                            ("-m", "vmlinux", ":vmlinux::"),
                            ("-f", "vmlinux:vfs_read", ":vmlinux:vfs_read:"),
                            ("-f", "fbt:vmlinux:vfs_read", "fbt:vmlinux:vfs_read:")]:
        r = _run(dtrace, "-S", "-e", flag, arg)
        assert r.returncode == 0 and f"CLAUSE 0 {desc} " in r.stdout, (flag, r.stdout, r.stderr)
    r = _run(dtrace, "-e", "-m", "a:b:c")
    assert r.returncode != 0 and "too many components" in r.stderr, r.stderr
