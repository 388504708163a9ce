"""The ``__init__`` templates of :mod:`.frozen`, compiled with this module rather than by ``exec``
as a class is made: a compile at a class's making cost 0.15-0.25 ms, about 4 ms of a command's
start for the records it imports.

``frozen<n>(s0, ..)`` returns the ``__init__`` of a frozen record of n fields, which stores
argument ``a<i>`` through the slot setter ``s<i>`` of its closure; ``mutable<n>`` is the
``__init__`` of a mutable record of n fields, which stores argument ``n<i>`` as attribute
``n<i>``; ``making<n>(cls)`` returns the ``__init__`` of :func:`.frozen.maker`'s class for a
frozen record ``cls`` of n fields, which stores as a mutable record's does and then makes the
object a ``cls``. :mod:`.frozen` renames the arguments and attributes to the fields'
(``CodeType.replace``) and compiles the text of a template for more fields than these
(:func:`text`) as the record is made. The templates below are the text :func:`source` writes (tests/test_frozen.py checks it).
"""
FIELDS = 13  # the most fields of a record of the toolchain


def source(fields: int = FIELDS) -> str:
    """The text of the templates for up to ``fields`` fields."""
    return "".join(text(kind, n) for kind in ("frozen", "mutable", "making")
                   for n in range(fields + 1))


def text(kind: str, n: int) -> str:
    """The text of template ``<kind><n>`` ("frozen", "mutable" or "making")."""
    if kind == "frozen":
        params = "".join(f", a{i}" for i in range(n))
        return (f"\n\ndef frozen{n}({', '.join(f's{i}' for i in range(n))}):\n"
                f"    def __init__(self{params}):\n"
                + _lines([f"s{i}(self, a{i})" for i in range(n)], 8) + "    return __init__\n")
    params = "".join(f", n{i}" for i in range(n))
    stores = [f"self.n{i} = n{i}" for i in range(n)]
    if kind == "making":
        return (f"\n\ndef making{n}(cls):\n"
                f"    def __init__(self{params}):\n"
                + _lines(stores, 8) + "        self.__class__ = cls\n    return __init__\n")
    return f"\n\ndef mutable{n}(self{params}):\n" + _lines(stores, 4)


def _lines(stores: list[str], indent: int) -> str:
    """``stores`` as statements, six a line (``pass`` for none)."""
    if not stores:
        return " " * indent + "pass\n"
    return "".join(" " * indent + "; ".join(stores[i:i + 6]) + "\n"
                   for i in range(0, len(stores), 6))


def frozen0():
    def __init__(self):
        pass
    return __init__


def frozen1(s0):
    def __init__(self, a0):
        s0(self, a0)
    return __init__


def frozen2(s0, s1):
    def __init__(self, a0, a1):
        s0(self, a0); s1(self, a1)
    return __init__


def frozen3(s0, s1, s2):
    def __init__(self, a0, a1, a2):
        s0(self, a0); s1(self, a1); s2(self, a2)
    return __init__


def frozen4(s0, s1, s2, s3):
    def __init__(self, a0, a1, a2, a3):
        s0(self, a0); s1(self, a1); s2(self, a2); s3(self, a3)
    return __init__


def frozen5(s0, s1, s2, s3, s4):
    def __init__(self, a0, a1, a2, a3, a4):
        s0(self, a0); s1(self, a1); s2(self, a2); s3(self, a3); s4(self, a4)
    return __init__


def frozen6(s0, s1, s2, s3, s4, s5):
    def __init__(self, a0, a1, a2, a3, a4, a5):
        s0(self, a0); s1(self, a1); s2(self, a2); s3(self, a3); s4(self, a4); s5(self, a5)
    return __init__


def frozen7(s0, s1, s2, s3, s4, s5, s6):
    def __init__(self, a0, a1, a2, a3, a4, a5, a6):
        s0(self, a0); s1(self, a1); s2(self, a2); s3(self, a3); s4(self, a4); s5(self, a5)
        s6(self, a6)
    return __init__


def frozen8(s0, s1, s2, s3, s4, s5, s6, s7):
    def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7):
        s0(self, a0); s1(self, a1); s2(self, a2); s3(self, a3); s4(self, a4); s5(self, a5)
        s6(self, a6); s7(self, a7)
    return __init__


def frozen9(s0, s1, s2, s3, s4, s5, s6, s7, s8):
    def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8):
        s0(self, a0); s1(self, a1); s2(self, a2); s3(self, a3); s4(self, a4); s5(self, a5)
        s6(self, a6); s7(self, a7); s8(self, a8)
    return __init__


def frozen10(s0, s1, s2, s3, s4, s5, s6, s7, s8, s9):
    def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9):
        s0(self, a0); s1(self, a1); s2(self, a2); s3(self, a3); s4(self, a4); s5(self, a5)
        s6(self, a6); s7(self, a7); s8(self, a8); s9(self, a9)
    return __init__


def frozen11(s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10):
    def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10):
        s0(self, a0); s1(self, a1); s2(self, a2); s3(self, a3); s4(self, a4); s5(self, a5)
        s6(self, a6); s7(self, a7); s8(self, a8); s9(self, a9); s10(self, a10)
    return __init__


def frozen12(s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11):
    def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11):
        s0(self, a0); s1(self, a1); s2(self, a2); s3(self, a3); s4(self, a4); s5(self, a5)
        s6(self, a6); s7(self, a7); s8(self, a8); s9(self, a9); s10(self, a10); s11(self, a11)
    return __init__


def frozen13(s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12):
    def __init__(self, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12):
        s0(self, a0); s1(self, a1); s2(self, a2); s3(self, a3); s4(self, a4); s5(self, a5)
        s6(self, a6); s7(self, a7); s8(self, a8); s9(self, a9); s10(self, a10); s11(self, a11)
        s12(self, a12)
    return __init__


def mutable0(self):
    pass


def mutable1(self, n0):
    self.n0 = n0


def mutable2(self, n0, n1):
    self.n0 = n0; self.n1 = n1


def mutable3(self, n0, n1, n2):
    self.n0 = n0; self.n1 = n1; self.n2 = n2


def mutable4(self, n0, n1, n2, n3):
    self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3


def mutable5(self, n0, n1, n2, n3, n4):
    self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4


def mutable6(self, n0, n1, n2, n3, n4, n5):
    self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4; self.n5 = n5


def mutable7(self, n0, n1, n2, n3, n4, n5, n6):
    self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4; self.n5 = n5
    self.n6 = n6


def mutable8(self, n0, n1, n2, n3, n4, n5, n6, n7):
    self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4; self.n5 = n5
    self.n6 = n6; self.n7 = n7


def mutable9(self, n0, n1, n2, n3, n4, n5, n6, n7, n8):
    self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4; self.n5 = n5
    self.n6 = n6; self.n7 = n7; self.n8 = n8


def mutable10(self, n0, n1, n2, n3, n4, n5, n6, n7, n8, n9):
    self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4; self.n5 = n5
    self.n6 = n6; self.n7 = n7; self.n8 = n8; self.n9 = n9


def mutable11(self, n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10):
    self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4; self.n5 = n5
    self.n6 = n6; self.n7 = n7; self.n8 = n8; self.n9 = n9; self.n10 = n10


def mutable12(self, n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11):
    self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4; self.n5 = n5
    self.n6 = n6; self.n7 = n7; self.n8 = n8; self.n9 = n9; self.n10 = n10; self.n11 = n11


def mutable13(self, n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11, n12):
    self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4; self.n5 = n5
    self.n6 = n6; self.n7 = n7; self.n8 = n8; self.n9 = n9; self.n10 = n10; self.n11 = n11
    self.n12 = n12


def making0(cls):
    def __init__(self):
        pass
        self.__class__ = cls
    return __init__


def making1(cls):
    def __init__(self, n0):
        self.n0 = n0
        self.__class__ = cls
    return __init__


def making2(cls):
    def __init__(self, n0, n1):
        self.n0 = n0; self.n1 = n1
        self.__class__ = cls
    return __init__


def making3(cls):
    def __init__(self, n0, n1, n2):
        self.n0 = n0; self.n1 = n1; self.n2 = n2
        self.__class__ = cls
    return __init__


def making4(cls):
    def __init__(self, n0, n1, n2, n3):
        self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3
        self.__class__ = cls
    return __init__


def making5(cls):
    def __init__(self, n0, n1, n2, n3, n4):
        self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4
        self.__class__ = cls
    return __init__


def making6(cls):
    def __init__(self, n0, n1, n2, n3, n4, n5):
        self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4; self.n5 = n5
        self.__class__ = cls
    return __init__


def making7(cls):
    def __init__(self, n0, n1, n2, n3, n4, n5, n6):
        self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4; self.n5 = n5
        self.n6 = n6
        self.__class__ = cls
    return __init__


def making8(cls):
    def __init__(self, n0, n1, n2, n3, n4, n5, n6, n7):
        self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4; self.n5 = n5
        self.n6 = n6; self.n7 = n7
        self.__class__ = cls
    return __init__


def making9(cls):
    def __init__(self, n0, n1, n2, n3, n4, n5, n6, n7, n8):
        self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4; self.n5 = n5
        self.n6 = n6; self.n7 = n7; self.n8 = n8
        self.__class__ = cls
    return __init__


def making10(cls):
    def __init__(self, n0, n1, n2, n3, n4, n5, n6, n7, n8, n9):
        self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4; self.n5 = n5
        self.n6 = n6; self.n7 = n7; self.n8 = n8; self.n9 = n9
        self.__class__ = cls
    return __init__


def making11(cls):
    def __init__(self, n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10):
        self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4; self.n5 = n5
        self.n6 = n6; self.n7 = n7; self.n8 = n8; self.n9 = n9; self.n10 = n10
        self.__class__ = cls
    return __init__


def making12(cls):
    def __init__(self, n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11):
        self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4; self.n5 = n5
        self.n6 = n6; self.n7 = n7; self.n8 = n8; self.n9 = n9; self.n10 = n10; self.n11 = n11
        self.__class__ = cls
    return __init__


def making13(cls):
    def __init__(self, n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11, n12):
        self.n0 = n0; self.n1 = n1; self.n2 = n2; self.n3 = n3; self.n4 = n4; self.n5 = n5
        self.n6 = n6; self.n7 = n7; self.n8 = n8; self.n9 = n9; self.n10 = n10; self.n11 = n11
        self.n12 = n12
        self.__class__ = cls
    return __init__
