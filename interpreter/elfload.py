"""A loader for the object code LLVM makes of a kernel: an x86-64 ELF relocatable file placed in
executable memory, its relocations applied, without LLVM (see :mod:`.objcache`, which keeps such
files on disk so that a program run again needs neither llvmlite nor a compilation).

It takes what llvmengine's target machine produces (the large code model: code in ``.ltext``,
constants in ``.lrodata`` or ``.rodata.cst*``, every address as an absolute 64-bit relocation),
and also the small code model's PC-relative forms, with a jump slot or a table entry in the
loaded image for a symbol of this process. Anything else (another machine, a writable section,
a relocation type not listed here, an undefined symbol this process does not provide) raises
:class:`Unloadable`, and the caller compiles with LLVM as before. Unwinding tables are left out:
nothing unwinds through a kernel.

The image is mapped writable, filled, then made read-only and executable (never both writable
and executable).
"""
from __future__ import annotations

import ctypes
import mmap
import struct

EM_X86_64 = 62
ET_REL = 1
SHT_SYMTAB, SHT_RELA, SHT_NOBITS, SHT_REL = 2, 4, 8, 9
SHF_WRITE, SHF_ALLOC = 0x1, 0x2
SHN_UNDEF, SHN_LORESERVE, SHN_ABS = 0, 0xFF00, 0xFFF1
SHT_X86_64_UNWIND = 0x70000001
R_NONE, R_64, R_PC32, R_PLT32, R_GOTPCREL, R_32, R_32S, R_PC64 = 0, 1, 2, 4, 9, 10, 11, 24
R_GOTPCRELX, R_REX_GOTPCRELX = 41, 42
_PAGE = mmap.PAGESIZE
_SLOT = 16  # a jump slot: jmp *0(%rip), then the 8-byte address (6 + 8 bytes, 16 with padding)


class Unloadable(Exception):
    """The object is not one this loader places (the caller compiles it instead)."""


class Section:
    __slots__ = ("name", "type", "flags", "offset", "size", "link", "info", "align")

    def __init__(self, name: int, type_: int, flags: int, offset: int, size: int, link: int,
                 info: int, align: int):
        self.name, self.type, self.flags, self.offset = name, type_, flags, offset
        self.size, self.link, self.info, self.align = size, link, info, max(1, align)


def _sections(obj: bytes) -> list[Section]:
    if len(obj) < 64 or obj[:6] != b"\x7fELF\x02\x01":
        raise Unloadable("not a 64-bit little-endian ELF file")
    e_type, machine = struct.unpack_from("<HH", obj, 0x10)
    if e_type != ET_REL or machine != EM_X86_64:
        raise Unloadable(f"not an x86-64 relocatable object (type {e_type}, machine {machine})")
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    if shentsize != 64 or shoff + 64 * shnum > len(obj):
        raise Unloadable("a section table outside the file")
    out = []
    for i in range(shnum):
        name, type_, flags, _, offset, size, link, info, align, _ = struct.unpack_from(
            "<IIQQQQIIQQ", obj, shoff + 64 * i)
        if type_ != SHT_NOBITS and offset + size > len(obj):
            raise Unloadable("a section outside the file")
        out.append(Section(name, type_, flags, offset, size, link, info, align))
    return out


def _name(obj: bytes, strtab: Section, at: int) -> str:
    start = strtab.offset + at
    return obj[start:obj.index(b"\0", start)].decode("ascii", "replace")


def _symbols(obj: bytes, sections: list[Section]) -> tuple[list[tuple[str, int, int]], Section]:
    """(name, section index, value) of every symbol, and the symbol table's section."""
    tables = [s for s in sections if s.type == SHT_SYMTAB]
    if len(tables) != 1:
        raise Unloadable("not one symbol table")
    table = tables[0]
    strtab = sections[table.link]
    syms = []
    for k in range(table.size // 24):
        st_name, _, _, shndx, value, _ = struct.unpack_from("<IBBHQQ", obj, table.offset + 24 * k)
        syms.append((_name(obj, strtab, st_name) if st_name else "", shndx, value))
    return syms, table


def undefined_symbols(obj: bytes) -> list[str]:
    """The undefined symbols of a 64-bit little-endian ELF object (what a loader must resolve)."""
    if obj[:6] != b"\x7fELF\x02\x01":
        return []
    sections = _sections(obj)
    names = []
    for table in (s for s in sections if s.type == SHT_SYMTAB):
        strtab = sections[table.link]
        for k in range(table.size // 24):
            st_name, _, _, shndx, _, _ = struct.unpack_from("<IBBHQQ", obj, table.offset + 24 * k)
            if shndx == SHN_UNDEF and st_name:
                names.append(_name(obj, strtab, st_name))
    return names


def _process_symbol(name: str) -> int:
    """The address of a symbol of this process (libc, libm), as the JIT would resolve it."""
    try:
        address = ctypes.cast(getattr(ctypes.CDLL(None), name), ctypes.c_void_p).value
    except AttributeError:
        address = None
    if not address:
        raise Unloadable(f"the code calls {name}, which this process does not provide")
    return address


class Image:
    """Loaded code: ``address(name)`` is where a function of it starts. Keep the image alive while
    its code may run (the mapping goes when it does)."""

    def __init__(self, memory: mmap.mmap, base: int, symbols: dict[str, int]):
        self._memory = memory
        self.base = base
        self._symbols = symbols

    def address(self, name: str) -> int:
        if name not in self._symbols:
            raise Unloadable(f"the object defines no {name}")
        return self._symbols[name]


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    libc.mprotect.restype = ctypes.c_int
    return libc


def load(obj: bytes) -> Image:
    """Place the object's allocated sections in new executable memory and relocate them."""
    try:
        return _load(obj)
    except (struct.error, IndexError, KeyError, ValueError) as e:  # a table pointing outside
        raise Unloadable(f"a malformed object ({type(e).__name__})") from None


def _load(obj: bytes) -> Image:
    sections = _sections(obj)
    syms, table = _symbols(obj, sections)
    placed: dict[int, int] = {}  # section index -> offset in the image
    end = 0
    for i, s in enumerate(sections):
        if not s.flags & SHF_ALLOC or s.type == SHT_X86_64_UNWIND or s.size == 0:
            continue
        if s.flags & SHF_WRITE:
            raise Unloadable("a writable section")
        if s.type == SHT_NOBITS:  # (zeroed data, all of it writable in what LLVM makes)
            raise Unloadable("an uninitialised section")
        if s.align > _PAGE:
            raise Unloadable(f"a section aligned to {s.align} bytes")
        end = -(-end // s.align) * s.align
        placed[i] = end
        end += s.size
    if any(s.type == SHT_REL and s.info in placed for s in sections):
        raise Unloadable("relocations without addends (x86-64 objects have them)")
    relocations = [s for s in sections if s.type == SHT_RELA and s.info in placed]
    if any(r.link != sections.index(table) for r in relocations):
        raise Unloadable("relocations against another symbol table")
    slots: dict[str, int] = {}  # jump slots and table entries, for symbols of this process
    externals: dict[str, int] = {}
    for name, shndx, _ in syms:
        if shndx == SHN_UNDEF and name:
            externals[name] = _process_symbol(name)
    slots_at = -(-end // _SLOT) * _SLOT
    size = -(-(slots_at + _SLOT * len(externals)) // _PAGE) * _PAGE or _PAGE
    memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                       prot=mmap.PROT_READ | mmap.PROT_WRITE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(memory))
    for i, at in placed.items():
        s = sections[i]
        memory[at:at + s.size] = obj[s.offset:s.offset + s.size]
    for k, (name, address) in enumerate(sorted(externals.items())):
        at = slots_at + _SLOT * k
        slots[name] = base + at
        memory[at:at + 14] = b"\xff\x25\x00\x00\x00\x00" + struct.pack("<Q", address)

    def value(index: int) -> tuple[int, int | None]:
        """A symbol's address, and its jump slot's when it is one of this process."""
        name, shndx, val = syms[index]
        if shndx == SHN_UNDEF:
            return externals[name], slots[name]
        if shndx == SHN_ABS:
            return val, None
        if shndx >= SHN_LORESERVE or shndx not in placed:
            raise Unloadable(f"a relocation against {name or 'a section'} that is not loaded")
        return base + placed[shndx] + val, None

    for rel in relocations:
        where = base + placed[rel.info]
        for k in range(rel.size // 24):
            offset, info, addend = struct.unpack_from("<QQq", obj, rel.offset + 24 * k)
            kind, index = info & 0xFFFFFFFF, info >> 32
            if offset + (8 if kind in (R_64, R_PC64) else 4) > sections[rel.info].size:
                raise Unloadable("a relocation outside its section")
            at = placed[rel.info] + offset
            p = where + offset
            if kind == R_NONE:
                continue
            s, slot = value(index)
            if kind == R_64:
                memory[at:at + 8] = struct.pack("<Q", (s + addend) & (2**64 - 1))
            elif kind == R_PC64:
                memory[at:at + 8] = struct.pack("<Q", (s + addend - p) & (2**64 - 1))
            elif kind in (R_PC32, R_PLT32):
                target = slot if kind == R_PLT32 and slot is not None else s
                memory[at:at + 4] = _fit32(target + addend - p, signed=True)
            elif kind in (R_GOTPCREL, R_GOTPCRELX, R_REX_GOTPCRELX):
                if slot is None:
                    raise Unloadable("a table entry for a symbol of the object itself")
                # the slot's address field holds the symbol's address: it serves as its entry
                memory[at:at + 4] = _fit32(slot + 6 + addend - p, signed=True)
            elif kind in (R_32, R_32S):
                memory[at:at + 4] = _fit32(s + addend, signed=kind == R_32S)
            else:
                raise Unloadable(f"relocation type {kind}")
    if _libc().mprotect(base, size, mmap.PROT_READ | mmap.PROT_EXEC) != 0:
        raise Unloadable(f"memory cannot be made executable (errno {ctypes.get_errno()})")
    exported = {name: value(k)[0] for k, (name, shndx, _) in enumerate(syms)
                if name and shndx != SHN_UNDEF and shndx in placed}
    return Image(memory, base, exported)


def _fit32(v: int, signed: bool) -> bytes:
    lo, hi = (-(2**31), 2**31) if signed else (0, 2**32)
    if not lo <= v < hi:
        raise Unloadable("a 32-bit relocation out of reach")
    return struct.pack("<i" if signed else "<I", v)
