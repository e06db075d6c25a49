#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# megatron_flags.py: list the command-line flag names that Megatron-LM's
# pretrain_gpt.py argument parser accepts at a given commit.
#
# The Megatron-LM sources are read from a (bare) git mirror with `git show` and
# parsed statically with `ast`; nothing from Megatron or torch is imported.
# Flags come from
#   1. literal `add_argument('--x', ...)` calls in the `_add_*` functions that
#      megatron/training/arguments.py:add_megatron_arguments() registers (and any
#      module-level helpers they call), plus the `extra_args_provider` that
#      pretrain_gpt.py passes to parse_and_validate_args();
#   2. `ArgumentGroupFactory(ConfigClass, exclude=[...]).build_group(...)`, which
#      megatron/training/argument_utils.py turns into one flag per dataclass field
#      (inherited fields included) that is not excluded and not `init=False`:
#      `--field-name`; a bool field whose default is not False becomes
#      `--no-field-name` and `--disable-field-name`; a field's
#      metadata={"argparse_meta": {"arg_names": [...]}} overrides the names.
#   An `action=argparse.BooleanOptionalAction` also registers `--no-<name>`.
# Flags registered only when an optional package imports (Kitchen, ModelOpt)
# are included and listed in the header.
#
# Usage: python3 tools/megatron_flags.py MIRROR_GIT_DIR COMMIT > tests/fixtures/megatron-flags.txt

import ast
import subprocess
import sys
import textwrap

ARGS_FILE = "megatron/training/arguments.py"
ENTRY_FILE = "pretrain_gpt.py"
REPO_NAME = "NVIDIA/Megatron-LM"


def warn(msg):
    print("megatron_flags: warning: " + msg, file=sys.stderr)


class Repo:
    """Read files of one commit of a git repository."""

    def __init__(self, git_dir, commit):
        self.git_dir = git_dir
        self.commit = self._git("rev-parse", "--verify", commit + "^{commit}").strip()
        self.date = self._git("show", "-s", "--format=%cI", self.commit).strip()
        self.files = set(self._git("ls-tree", "-r", "--name-only", self.commit).split("\n"))
        self._trees = {}

    def _git(self, *args):
        return subprocess.run(["git", "-C", self.git_dir] + list(args), check=True,
                              capture_output=True, text=True).stdout

    def tree(self, path):
        if path not in self._trees:
            self._trees[path] = ast.parse(self._git("show", self.commit + ":" + path), path)
        return self._trees[path]

    def module_file(self, module):
        base = module.replace(".", "/")
        for cand in (base + ".py", base + "/__init__.py"):
            if cand in self.files:
                return cand
        return None


def package_of(path):
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        return parts[:-1]
    return parts[:-1]


def resolve_import_from(path, node):
    """Absolute module name of an ImportFrom node found in file `path`."""
    if node.level == 0:
        return node.module
    pkg = package_of(path)
    if node.level > 1:
        pkg = pkg[: len(pkg) - (node.level - 1)]
    return ".".join(pkg + ([node.module] if node.module else []))


def imported_names(path, nodes):
    """name -> (module, original name) for `from X import a as b` among nodes."""
    out = {}
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            mod = resolve_import_from(path, node)
            for alias in node.names:
                out[alias.asname or alias.name] = (mod, alias.name)
    return out


def all_imports(path, tree):
    """Imports anywhere in a module (module level, try blocks, function bodies)."""
    return imported_names(path, [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)])


def find_definition(repo, module, name, kind, seen=None):
    """(path, node) for the `kind` (ast.ClassDef or ast.FunctionDef) named `name` reachable from `module`,
    following re-exports."""
    seen = seen or set()
    path = repo.module_file(module)
    if path is None or (path, name) in seen:
        return None
    seen.add((path, name))
    tree = repo.tree(path)
    for node in tree.body:
        if isinstance(node, kind) and node.name == name:
            return path, node
    imp = all_imports(path, tree)
    if name in imp:
        mod, orig = imp[name]
        return find_definition(repo, mod, orig, kind, seen)
    return None


def find_class(repo, module, name):
    return find_definition(repo, module, name, ast.ClassDef)


def find_function(repo, module, name):
    return find_definition(repo, module, name, ast.FunctionDef)


def is_dataclass(cls):
    for dec in cls.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Name) and target.id == "dataclass":
            return True
        if isinstance(target, ast.Attribute) and target.attr == "dataclass":
            return True
    return False


def literal(node, default=None):
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return default


def tail_name(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def dataclass_fields(repo, path, cls):
    """Ordered dict name -> field info, including fields of dataclass bases."""
    fields = {}
    imp = all_imports(path, repo.tree(path))
    for base in cls.bases:
        bname = tail_name(base)
        found = None
        for node in repo.tree(path).body:
            if isinstance(node, ast.ClassDef) and node.name == bname:
                found = (path, node)
        if found is None and bname in imp:
            found = find_class(repo, imp[bname][0], imp[bname][1])
        if found is None:
            if bname not in ("object", "Protocol", "Generic"):
                warn("%s: base class %s of %s not found" % (path, bname, cls.name))
            continue
        if is_dataclass(found[1]):
            fields.update(dataclass_fields(repo, found[0], found[1]))
    for stmt in cls.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        ann = stmt.annotation
        ann_head = tail_name(ann.value if isinstance(ann, ast.Subscript) else ann)
        if ann_head in ("ClassVar", "InitVar", "KW_ONLY"):
            continue
        info = {"name": stmt.target.id, "annotation": ann, "init": True,
                "default": stmt.value, "has_default_factory": False, "meta": None,
                "where": "%s:%d" % (path, stmt.lineno), "cls": cls.name}
        v = stmt.value
        if isinstance(v, ast.Call) and tail_name(v.func) == "field":
            info["default"] = None
            for kw in v.keywords:
                if kw.arg == "default":
                    info["default"] = kw.value
                elif kw.arg == "default_factory":
                    info["has_default_factory"] = True
                elif kw.arg == "init":
                    info["init"] = literal(kw.value, True)
                elif kw.arg == "metadata":
                    info["meta"] = kw.value
        fields[stmt.target.id] = info  # an override keeps the base's position in dicts
    return fields


class NotInferable(Exception):
    pass


def extract_type(ann):
    """Mimic ArgumentGroupFactory._extract_type: return the inferred `type` as a
    string ('bool', or another name), or raise NotInferable."""
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        return "<str-annotation>"  # a string annotation is not `bool` at runtime
    if isinstance(ann, ast.Constant) and ann.value is None:
        return "NoneType"
    # X | Y (types.UnionType)
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        members = []

        def flat(n):
            if isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr):
                flat(n.left)
                flat(n.right)
            else:
                members.append(n)
        flat(ann)
        if len(members) >= 2 and isinstance(members[1], ast.Constant) and members[1].value is None:
            return extract_type(members[0])
        raise NotInferable(ast.unparse(ann))
    if isinstance(ann, ast.Subscript):
        head = tail_name(ann.value)
        sl = ann.slice
        args = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        if head == "Optional":
            return extract_type(args[0])
        if head == "Union":
            if len(args) >= 2 and isinstance(args[1], ast.Constant) and args[1].value is None:
                return extract_type(args[0])
            raise NotInferable(ast.unparse(ann))
        if head in ("list", "List"):
            if len(args) == 1:
                return extract_type(args[0])
            raise NotInferable(ast.unparse(ann))
        if head == "Literal":
            vals = [literal(a) for a in args]
            return type(vals[0]).__name__
        raise NotInferable(ast.unparse(ann))
    name = tail_name(ann)
    if name is None:
        raise NotInferable(ast.unparse(ann))
    return name


def meta_boolean_optional(info):
    """True if the field's argparse_meta sets action=argparse.BooleanOptionalAction."""
    meta = info["meta"]
    if not isinstance(meta, ast.Dict):
        return False
    for k, v in zip(meta.keys, meta.values):
        if literal(k) == "argparse_meta" and isinstance(v, ast.Dict):
            for k2, v2 in zip(v.keys, v.values):
                if literal(k2) == "action" and tail_name(v2) == "BooleanOptionalAction":
                    return True
    return False


def meta_arg_names(info):
    """arg_names from field metadata's argparse_meta, or None; and whether argparse_meta exists."""
    meta = info["meta"]
    if meta is None:
        return None, False
    if not isinstance(meta, ast.Dict):
        warn("%s: non-literal metadata, cannot read argparse_meta" % info["where"])
        return None, False
    for k, v in zip(meta.keys, meta.values):
        if literal(k) == "argparse_meta":
            if not isinstance(v, ast.Dict):
                warn("%s: non-literal argparse_meta" % info["where"])
                return None, True
            for k2, v2 in zip(v.keys, v.values):
                if literal(k2) == "arg_names":
                    names = literal(v2)
                    if names is None:
                        warn("%s: non-literal arg_names" % info["where"])
                    return names, True
            return None, True
    return None, False


def fmt(name, prefix=None):
    if prefix:
        name = prefix + "_" + name
    return "--" + name.replace("_", "-")


def factory_flags(repo, path, cls, exclude):
    """Flags that ArgumentGroupFactory(cls, exclude).build_group() registers."""
    out = []
    fields = dataclass_fields(repo, path, cls)
    for name in exclude:
        if name not in fields:
            warn("exclude entry %r is not a field of %s" % (name, cls.name))
    for name, info in fields.items():
        if name in exclude or info["init"] is False:
            continue
        names = [fmt(name)]
        override, has_meta = meta_arg_names(info)
        try:
            if extract_type(info["annotation"]) == "bool":
                d = info["default"]
                is_false = (not info["has_default_factory"] and d is not None
                            and isinstance(d, ast.Constant) and d.value is not None
                            and d.value == False)  # noqa: E712  (0 == False, as at runtime)
                if d is not None and not isinstance(d, ast.Constant):
                    warn("%s: non-literal bool default %s" % (info["where"], ast.unparse(d)))
                if not is_false:
                    names = [fmt(name, "no"), fmt(name, "disable")]
        except NotInferable as e:
            if not has_meta:
                warn("%s: type %s not inferable and no argparse_meta (parser would fail)"
                     % (info["where"], e))
        if override is not None:
            names = list(override)
        if meta_boolean_optional(info):
            names += ["--no-" + n[2:] for n in names if n.startswith("--")]
        out.extend(names)
    return out


class Collector:
    def __init__(self, repo):
        self.repo = repo
        self.flags = {}  # flag -> set of condition strings ('' = unconditional)
        self.visited = set()

    def add(self, flag, cond):
        self.flags.setdefault(flag, set()).add(cond)

    def scan_function(self, path, func, cond=""):
        key = (path, func.name)
        if key in self.visited:
            return
        self.visited.add(key)
        tree = self.repo.tree(path)
        module_funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        imports = all_imports(path, tree)
        local_lists = {}
        for n in ast.walk(func):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                val = literal(n.value)
                if isinstance(val, list):
                    local_lists[n.targets[0].id] = val
        self._scan(path, func.body, cond, module_funcs, imports, local_lists)

    def _scan(self, path, stmts, cond, module_funcs, imports, local_lists):
        for stmt in stmts:
            inner = cond
            if isinstance(stmt, ast.If):
                c = "if " + ast.unparse(stmt.test)
                self._scan(path, stmt.body, cond or c, module_funcs, imports, local_lists)
                self._scan(path, stmt.orelse, cond or ("not " + c), module_funcs, imports, local_lists)
                continue
            if isinstance(stmt, (ast.For, ast.While, ast.With, ast.Try)):
                for block in ("body", "orelse", "finalbody"):
                    self._scan(path, getattr(stmt, block, []), cond, module_funcs, imports, local_lists)
                for h in getattr(stmt, "handlers", []):
                    self._scan(path, h.body, cond, module_funcs, imports, local_lists)
                continue
            if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
                continue
            for node in ast.walk(stmt):
                if not isinstance(node, ast.Call):
                    continue
                fname = tail_name(node.func)
                if isinstance(node.func, ast.Attribute) and fname == "add_argument":
                    boolean_optional = any(
                        kw.arg == "action" and tail_name(kw.value) == "BooleanOptionalAction"
                        for kw in node.keywords)
                    for a in node.args:
                        v = literal(a)
                        if isinstance(v, str) and v.startswith("-"):
                            self.add(v, inner)
                            if boolean_optional and v.startswith("--"):
                                # argparse.BooleanOptionalAction also registers --no-<name>
                                self.add("--no-" + v[2:], inner)
                        elif v is None:
                            warn("%s:%d: non-literal add_argument name %s"
                                 % (path, node.lineno, ast.unparse(a)))
                elif isinstance(node.func, ast.Name) and fname == "ArgumentGroupFactory":
                    cname = tail_name(node.args[0])
                    exclude = []
                    for kw in node.keywords:
                        if kw.arg == "exclude":
                            if isinstance(kw.value, ast.Name):
                                exclude = local_lists.get(kw.value.id)
                            else:
                                exclude = literal(kw.value)
                            if exclude is None:
                                warn("%s:%d: cannot read exclude list" % (path, node.lineno))
                                exclude = []
                    found = None
                    if cname in imports:
                        found = find_class(self.repo, imports[cname][0], imports[cname][1])
                    if found is None:
                        warn("%s:%d: config class %s not found" % (path, node.lineno, cname))
                        continue
                    for flag in factory_flags(self.repo, found[0], found[1], set(exclude)):
                        self.add(flag, inner)
                elif isinstance(node.func, ast.Name) and fname in module_funcs:
                    self.scan_function(path, module_funcs[fname], inner)
                elif isinstance(node.func, ast.Name) and fname in imports:
                    found = find_function(self.repo, *imports[fname])
                    if found is not None and found[0].startswith("megatron/"):
                        self.scan_function(found[0], found[1], inner)


def entry_extra_args_provider(repo):
    """(provider function names, condition) passed by pretrain_gpt.py to parse_and_validate_args."""
    tree = repo.tree(ENTRY_FILE)
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and tail_name(node.func) in ("parse_and_validate_args", "parse_args", "initialize_megatron"):
            for kw in node.keywords:
                if kw.arg == "extra_args_provider":
                    v = kw.value
                    if isinstance(v, ast.IfExp):
                        names.append((tail_name(v.body), "if " + ast.unparse(v.test)))
                        if tail_name(v.orelse):
                            names.append((tail_name(v.orelse), "if not " + ast.unparse(v.test)))
                    elif tail_name(v):
                        names.append((tail_name(v), ""))
    return names


def main(argv):
    if len(argv) != 3:
        print("usage: python3 tools/megatron_flags.py MIRROR_GIT_DIR COMMIT", file=sys.stderr)
        return 2
    repo = Repo(argv[1], argv[2])
    coll = Collector(repo)

    args_tree = repo.tree(ARGS_FILE)
    funcs = {n.name: n for n in args_tree.body if isinstance(n, ast.FunctionDef)}
    # parse_args() builds the parser with add_megatron_arguments() (+ extra_args_provider)
    coll.scan_function(ARGS_FILE, funcs["parse_args"])
    if (ARGS_FILE, "add_megatron_arguments") not in coll.visited:
        warn("parse_args does not call add_megatron_arguments")

    # Flags that only exist if an optional package imports. For the entry script's
    # extra_args_provider, the condition is the import succeeding (try/except ImportError).
    entry_imports = all_imports(ENTRY_FILE, repo.tree(ENTRY_FILE))
    for name, cond in entry_extra_args_provider(repo):
        if name == "None" or name not in entry_imports:
            continue
        found = find_function(repo, *entry_imports[name])
        if found is None:
            warn("extra_args_provider %s not found" % name)
            continue
        coll.scan_function(found[0], found[1], "%s (%s:%s)" % (cond, found[0], name))

    flags = sorted(coll.flags)
    conditional = {}
    for f in flags:
        if "" not in coll.flags[f]:
            for c in coll.flags[f]:
                conditional.setdefault(c, []).append(f)

    out = sys.stdout
    out.write("# Command-line flags accepted by Megatron-LM pretrain_gpt.py's argument parser.\n")
    out.write("# repository: https://github.com/%s\n" % REPO_NAME)
    out.write("# commit: %s\n" % repo.commit)
    out.write("# commit date: %s\n" % repo.date)
    out.write("# generated by: python3 tools/megatron_flags.py %s %s"
              " > tests/fixtures/megatron-flags.txt\n" % (argv[1], argv[2]))
    out.write("# (static ast parse of %s, %s and the config dataclasses it passes to"
              " ArgumentGroupFactory)\n" % (ENTRY_FILE, ARGS_FILE))
    out.write("# %d flags, one per line, sorted.\n" % len(flags))
    for c, fl in sorted(conditional.items()):
        out.write("# %d flags registered only %s:\n" % (len(fl), c))
        for line in textwrap.wrap(" ".join(fl), 100, break_on_hyphens=False):
            out.write("#   %s\n" % line)
    for f in flags:
        out.write(f + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
