#!/usr/bin/env python3
"""The public surface of sightline-model, counted from the sources (issue 50, section 6).

Usage: python3 notes/model_surface.py [CHECKOUT]   (default: the current directory)

Counts `pub mod` declarations, the modules reachable from outside the crate (through `pub mod`
or `pub use`), and the items reachable from outside: structs, enums, traits, functions,
constants, statics and types declared `pub` at module level in a reachable module, plus those a
reachable module re-exports with `pub use`; each defined item once. Generated code (the
`proto` module's prost types) is not counted. `cargo doc -p sightline-model --no-deps` and
its `all.html` give a similar count that lists a re-exported item once per public path.
"""
import os, re, sys
root=(sys.argv[1] if len(sys.argv)>1 else '.')+'/crates/model/src'
mods={}  # path tuple -> (file, src)
def walk(pt, f):
    src=open(f).read(); mods[pt]=(f,src)
    d=os.path.dirname(f); b=os.path.basename(f)
    sub=d if b in ('mod.rs','lib.rs') else os.path.join(d,b[:-3])
    for m in re.finditer(r'^(pub(?:\([a-z]+\))? )?mod ([a-z_0-9]+);', src, re.M):
        n=m.group(2)
        for c in (os.path.join(sub,n+'.rs'), os.path.join(sub,n,'mod.rs')):
            if os.path.exists(c): walk(pt+(n,), c); break
walk((), root+'/lib.rs')
pubmod={pt for pt in mods if pt==() or re.search(r'^pub mod '+pt[-1]+';', mods[pt[:-1]][1], re.M)}
reach={pt for pt in mods if all(pt[:i] in pubmod for i in range(len(pt)+1))}
KW=r'(?:struct|enum|fn|const|static|trait|type|union)'
def items(pt):
    src=mods[pt][1]
    return set(re.findall(r'^pub (?:unsafe |const |async )*'+KW+r' ([A-Za-z_0-9]+)', src, re.M))
def expand(prefix, tree):
    tree=tree.strip()
    out=[]
    if tree.startswith('{'):
        inner=tree[1:-1]
        depth=0; cur=''; parts=[]
        for ch in inner:
            if ch=='{': depth+=1
            if ch=='}': depth-=1
            if ch==',' and depth==0: parts.append(cur); cur=''
            else: cur+=ch
        parts.append(cur)
        for p in parts:
            p=p.strip()
            if p: out+=expand(prefix,p)
        return out
    m=re.match(r'([A-Za-z_0-9]+)\s*::\s*(.*)$', tree, re.S)
    if m: return expand(prefix+[m.group(1)], m.group(2))
    m=re.match(r'([A-Za-z_0-9*]+)(\s+as\s+([A-Za-z_0-9]+))?$', tree, re.S)
    if m:
        name=m.group(1); alias=m.group(3)
        if name=='self': return [(prefix, alias)]
        return [(prefix+[name], alias)]
    print('??',prefix,tree,file=sys.stderr); return []
def resolve(pt, path):
    segs=list(path)
    if segs[0]=='crate': base=(); segs=segs[1:]
    elif segs[0]=='super': base=pt[:-1]; segs=segs[1:]
    elif segs[0]=='self': base=pt; segs=segs[1:]
    else: base=pt
    while segs and segs[0]=='super': base=base[:-1]; segs=segs[1:]
    return base, segs
def origin(mod, name, depth=0):
    """The (module, name) defining `name` as seen from `mod`, following `pub use` chains."""
    if depth > 8 or mod not in mods:
        return None
    if name in items(mod):
        return (mod, name)
    for m in re.finditer(r'^pub(?:\([a-z]+\))? use ([^;]*);', mods[mod][1], re.M | re.S):
        for path, alias in expand([], re.sub(r'//[^\n]*', '', m.group(1))):
            base, segs = resolve(mod, path)
            if segs and (alias or segs[-1]) == name:
                return origin(base + tuple(segs[:-1]), segs[-1], depth + 1)
    return None
found=set()
for pt in mods:
    if pt in reach:
        for i in items(pt): found.add((pt,i))
changed=True
exported={pt for pt in reach}
while changed:
    changed=False
    for pt in list(exported):
        src=mods[pt][1]
        for m in re.finditer(r'^pub use ([^;]*);', src, re.M|re.S):
            for path,alias in expand([], re.sub(r'//[^\n]*','',m.group(1))):
                base,segs=resolve(pt,path)
                if not segs: continue
                mod=base+tuple(segs[:-1]); name=segs[-1]
                if mod not in mods: continue  # external crate or proto
                if name=='*':
                    for i in items(mod):
                        if (mod,i) not in found: found.add((mod,i)); changed=True
                elif mod+(name,) in mods:
                    if mod+(name,) not in exported: exported.add(mod+(name,)); changed=True
                    for i in items(mod+(name,)):
                        if (mod+(name,),i) not in found: found.add((mod+(name,),i)); changed=True
                else:
                    target=origin(mod, name)
                    if target and target not in found:
                        found.add(target); changed=True
print('pub mod declarations', sum(len(re.findall(r'^\s*pub mod ', s, re.M)) for f,s in mods.values()))
print('public modules', len(exported))
print("public items", len(found))
