"""The loop IR as text (``incac --emit loopir``, ``--print-after PASS``): INCA-Q-like statements
with vector indices written ``start:end[:step]`` (end exclusive), one statement per line."""
from __future__ import annotations

from ..incaq.ast import (Assign, Binary, BoolOp, Break, Call, Compare, Continue, DoWhile, For, If,
                         IfExpr, Index, Loop, Name, Not, Num, Unary, While)
from ..incaq.checked import Jump, Mark, Seq, TailLoop
from .ir import Kernel, Span, affine, affine_expr


def expr(e) -> str:
    """One expression, fully parenthesised."""
    match e:
        case Num(value=v, is_float=True):
            return repr(float(v))
        case Num(value=v):
            return str(v)
        case Name(id=n):
            return n
        case Span(start=st, length=n, step=k):
            end = Binary("+", st, Num((n - 1) * k + 1, False))
            a = affine(end, {})
            stop = expr(affine_expr(a)) if a is not None else expr(end)
            return f"{expr(st)}:{stop}" + (f":{k}" if k != 1 else "")
        case Index(base=b, indices=ix):
            return b + "".join(f"[{expr(i)}]" for i in ix)
        case Call(func=f, args=args):
            return f"{f}({', '.join(expr(a) for a in args)})"
        case Unary(op=op, operand=x):
            return f"({op}{expr(x)})"
        case Not(operand=x):
            return f"(not {expr(x)})"
        case Binary(op=op, left=a, right=b) | Compare(op=op, left=a, right=b) | \
                BoolOp(op=op, left=a, right=b):
            return f"({expr(a)} {op} {expr(b)})"
        case IfExpr(cond=c, then=a, orelse=b):
            return f"(if {expr(c)} then {expr(a)} else {expr(b)})"
        case Seq(pre=pre, value=v):
            return f"{{{'; '.join(' '.join(_stmt(s, 0)) for s in pre)}; {expr(v)}}}"
    return repr(e)


def _stmt(s, depth: int) -> list[str]:
    pad = "  " * depth
    match s:
        case Assign(target=t, value=v):
            return [f"{pad}{expr(t)} = {_top(v)}"]
        case For(var=i, lo=lo, hi=hi, body=b):
            return [f"{pad}for {i} in {_top(lo)} .. {_top(hi)} do {{", *_block(b, depth), pad + "}"]
        case While(cond=c, body=b):
            return [f"{pad}while {_top(c)} do {{", *_block(b, depth), pad + "}"]
        case DoWhile(body=b, cond=c):
            return [f"{pad}do {{", *_block(b, depth), f"{pad}}} while {_top(c)}"]
        case Loop(body=b):
            return [f"{pad}loop {{", *_block(b, depth), pad + "}"]
        case If(cond=c, then=t, orelse=o):
            lines = [f"{pad}if {_top(c)} then {{", *_block(t, depth)]
            if o:
                lines += [pad + "} else {", *_block(o, depth)]
            return lines + [pad + "}"]
        case Break():
            return [pad + "break"]
        case Continue():
            return [pad + "continue"]
        case Jump(label=name):
            return [f"{pad}jump {name}"]
        case Mark(label=name):
            return [f"{pad}{name}:"]
        case TailLoop(label=name, body=b):
            return [f"{pad}{name}: {{", *_block(b, depth), pad + "}"]
    return [pad + repr(s)]


def _top(e) -> str:
    text = expr(e)
    return text[1:-1] if text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]) \
        else text


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


def _block(body, depth: int) -> list[str]:
    return [line for s in body for line in _stmt(s, depth + 1)]


def show(k: Kernel) -> str:
    """The kernel: its non-scalar and declared locations, then its statements."""
    lines = []
    for s in k.syms.values():
        if s.kind == "param" or (s.implicit and not s.shape):
            continue
        dims = "".join(f"[{d}]" for d in s.shape)
        lines.append(f"{s.role} {s.name}: {s.dtype}{dims}")
    lines += [line for s in k.body for line in _stmt(s, 0)]
    return "\n".join(lines) + "\n"
