"""Writes ultisnips.json: the body cases of SirVer/ultisnips' own test suite that state an input and an outcome.

Run from a checkout of SirVer/ultisnips (the commit is recorded): python3 extract_ultisnips.py /path/to/ultisnips > ultisnips-cases.json
A case is taken when its `snippets` is one snippet, its keys are the trigger, EX, then typed text and JF jumps only
(no backspace, escape, backward jump or arrow keys), and no typed field holds another tabstop (what typing over a
nested field does to it is the editor's business, not the server's). Each case keeps the test's name, its keys
and its `wanted` exactly; `fields` is the typed text per tabstop, in the order JF visits them.
"""
import json, re, subprocess, sys

repo = sys.argv[1]
commit = subprocess.check_output(["git", "-C", repo, "rev-parse", "HEAD"], text=True).strip()
EX, JF = "\x01EX\x01", "\x01JF\x01"
env = {"EX": EX, "JF": JF}
cases = []
for name in ["test_Mirror", "test_TabStop", "test_Transformation", "test_Visual", "test_Interpolation"]:
    source = subprocess.check_output(["git", "-C", repo, "show", f"HEAD:test/{name}.py"], text=True)
    for match in re.finditer(r"class (\w+)\(_VimTest\):\n((?:    .*\n|\n)+?)(?=class |\Z)", source):
        test, text = match.group(1), match.group(2)
        if "files" in text or "skip_if" in text or "def " in text:
            continue
        values = {}
        for key in ("snippets", "keys", "wanted"):
            found = re.search(rf"^    {key} = (.*(?:\n        .*)*)", text, re.M)
            if not found:
                break
            try:
                values[key] = eval(found.group(1), dict(env))
            except Exception:
                break
        if len(values) < 3 or not isinstance(values["snippets"], tuple) or not isinstance(values["snippets"][0], str):
            continue
        snippet = values["snippets"]
        trigger, body = snippet[0], snippet[1]
        options = snippet[3] if len(snippet) > 3 else ""
        keys, wanted = values["keys"], values["wanted"]
        if any(c in keys for c in "\b\x1b") or "\x01" in wanted or keys.count(EX) != 1 or options:
            continue
        before, after = keys.split(EX)
        if not before.endswith(trigger):
            continue
        numbers = sorted({int(n) for n in re.findall(r"\$\{?(\d+)", body)})
        order = [n for n in numbers if n > 0] + [0]
        typed = after.split(JF)
        if len(typed) > len(order):
            continue
        fields = {str(order[i]): t for i, t in enumerate(typed) if t}
        # A typed field that holds another tabstop: skip (see above).
        nested = any(re.search(r"\$\{" + n + r":[^}]*\$\{?\d", body) for n in fields)
        if nested:
            continue
        cases.append({
            "test": f"test/{name}.py::{test}", "trigger": trigger, "body": body, "prefix": before[: -len(trigger)],
            "keys": keys.replace(EX, "<EX>").replace(JF, "<JF>"), "fields": fields, "wanted": wanted,
        })
json.dump({"repository": "SirVer/ultisnips", "commit": commit, "cases": cases}, sys.stdout, indent=1, ensure_ascii=False)
