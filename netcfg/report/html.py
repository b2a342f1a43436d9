"""One self-contained HTML page to read a fabric at a glance: a rail map of the switches, a grid of
every host NIC, the findings table and the drift since the last audit.

Self-contained means nothing is fetched to view it: the CSS and the script are inline and the page's
Content-Security-Policy allows nothing else (no URL, no font, no image), so a device-supplied string
that escaped escaping still could not load or run anything. Every cell carries only its colour; what
a cell's findings say is in one JSON blob that the script reads on hover and click, which keeps a
32,768-GPU fabric's page small.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections import Counter
from collections.abc import Iterable
from html import escape

from netcfg.model import Endpoint, Role, expand_ports
from netcfg.report.base import Report
from netcfg.report.formats import UNCHECKED_RULES
from netcfg.report.layout import FabricLayout, HostPlace, NicPlace, SwitchPlace
from netcfg.report.locations import file_line
from netcfg.report.where import LABEL, ORDER, sev, where_section
from netcfg.rules import Finding, Severity

# A cell's status, worst first: an error, then what could not be checked (not collected, output
# netcfg could not read: unknown is not pass), then warnings and notes. "o" is clean, "n" a device the
# report has no state for, "x" a rail on which a host has no NIC.
RANK = {"e": 4, "u": 3, "w": 2, "i": 1, "o": 0}
STATUS_TEXT = {
    "e": "error",
    "u": "not checked: not collected or output not readable",
    "w": "warning",
    "i": "info",
    "o": "no findings",
    "n": "not checked: no state in this report",
}
_SEVERITY_STATUS = {Severity.ERROR: "e", Severity.WARNING: "w", Severity.INFO: "i"}

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:0 1.5em 4em;color:#1f2328}
h1{font-size:1.5em;margin:.6em 0 .2em}h2{font-size:1.15em;margin:1.4em 0 .4em}
.e{background:#cf222e;color:#fff}.w{background:#e3a008;color:#000}.i{background:#218bff;color:#000}
.o{background:#2da44e;color:#000}.u{background:#8c959f;color:#000}.n{background:#eaeef2;color:#1f2328}
.x{background:#fff}
.badge,.sev{display:inline-block;padding:.05em .5em;margin-right:.3em;border-radius:1em;white-space:nowrap}
.verdict{font-weight:600;display:inline-block;padding:.2em .7em;border-radius:.3em}
:focus-visible{outline:3px solid #0550ae;outline-offset:2px}
.where{list-style:none;padding:0}.where ul{list-style:none;padding-left:1.5em}
.where summary{cursor:pointer;padding:2px 0}.where table{margin:.3em 0 .6em 1.5em}
.counts{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start}
caption{text-align:left;font-weight:600;padding-bottom:2px}
.filters button{margin:0 .3em .4em 0;padding:.2em .6em;border:2px solid #57606a;border-radius:1em;
background:#fff;color:#1f2328;cursor:pointer}
.filters button[aria-pressed=false]{text-decoration:line-through;background:#eaeef2}
.ft th button{all:unset;cursor:pointer;font-weight:600}
table{border-collapse:collapse}
.rm th{text-align:left;padding:2px 8px;font-weight:600;white-space:nowrap}
.rm td{padding:1px;vertical-align:top}
.rm b{display:inline-block;padding:2px 6px;margin:1px;border-radius:3px;font:12px/1.3 ui-monospace,monospace;
font-weight:400;cursor:pointer}
.rm b.e::before,.g td.e::before{content:"✖ "/""}.rm b.w::before,.g td.w::before{content:"▲ "/""}
.rm b.i::before,.g td.i::before{content:"i "/""}.rm b.u::before,.g td.u::before{content:"? "/""}
.band td{border-bottom:2px solid #d0d7de}
.grids{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}
.g{font:11px/1 ui-monospace,monospace}
.g th{font-weight:400;text-align:right;padding:0 4px;white-space:nowrap}
.g th.e,.g th.w,.g th.i,.g th.u{font-weight:600}
.g td{width:14px;height:14px;border:1px solid #fff;padding:0;cursor:pointer;font-size:8px;text-align:center;
overflow:hidden}
.ft td,.ft th,.dt td,.dt th{border:1px solid #d0d7de;padding:3px 6px;text-align:left;vertical-align:top}
#findings td:nth-child(n+5){overflow-wrap:anywhere}
section{content-visibility:auto;contain-intrinsic-size:auto 1200px}
#panel{position:fixed;right:0;top:0;bottom:0;width:min(44em,60vw);overflow:auto;background:#fff;
border-left:2px solid #57606a;padding:0 1em 1em;box-shadow:-4px 0 12px #0003}
#panel table{width:100%}#panel button{float:right;margin-top:1em;font-size:1.2em}
.legend b{display:inline-block;padding:2px 6px;margin-right:4px;border-radius:3px;font-weight:400}
"""

SCRIPT = """
(function(){
var D=JSON.parse(document.getElementById('findings-data').textContent);
var T=JSON.parse(document.getElementById('status-text').textContent);
var panel=document.getElementById('panel'),title=document.getElementById('panel-title'),
 status=document.getElementById('panel-status'),body=document.getElementById('panel-rows');
function cell(t){return t.closest?t.closest('[data-k],tr[data-h]>td,tr[data-h]>th'):null;}
function key(el){
 if(el.dataset.k)return el.dataset.k;
 var h=el.parentNode.dataset.h;return el.tagName==='TH'?h:h+'#'+el.cellIndex;}
function label(k,el){
 return D.l[k]||(el.tagName==='TD'?el.parentNode.dataset.h+' NIC of rail '+el.cellIndex:k);}
function found(k){return (D.c[k]||[]).map(function(i){return D.f[i];});}
document.addEventListener('mouseover',function(ev){
 var el=cell(ev.target);if(!el||el.title||el.className==='x')return;
 var k=key(el),fs=found(k),lines=fs.slice(0,8).map(function(f){
  return f[1]+' '+f[2]+(f[4]?' '+f[4]:'')+(f[3]===k?'':' ('+f[3]+')')+': '+f[7];});
 if(fs.length>8)lines.push('... '+(fs.length-8)+' more: click');
 el.title=label(k,el)+'\\n'+(lines.length?lines.join('\\n'):T[el.className]);});
var opener=null;
function show(el){
 var k=key(el),fs=found(k);
 title.textContent=label(k,el);status.textContent=T[el.className];
 body.replaceChildren.apply(body,fs.map(function(f){
  var tr=document.createElement('tr');tr.className=f[0];
  [1,2,3,4,5,6,7,8].forEach(function(i){var td=document.createElement('td');td.textContent=f[i]||'';
   tr.appendChild(td);});
  return tr;}));
 panel.hidden=false;}
document.addEventListener('click',function(ev){
 var el=cell(ev.target);if(el&&el.className!=='x')show(el);});
function close(){panel.hidden=true;if(opener){opener.focus();opener=null;}}
document.getElementById('panel-close').addEventListener('click',close);
document.addEventListener('keydown',function(ev){
 if(ev.key==='Escape'&&!panel.hidden)close();
 else if((ev.key==='Enter'||ev.key===' ')&&ev.target.dataset&&ev.target.dataset.k){
  ev.preventDefault();opener=ev.target;show(ev.target);document.getElementById('panel-close').focus();}});
var table=document.getElementById('findings');
if(table){
 var tbody=table.tBodies[0],rows=[].slice.call(tbody.rows),shown={};
 var q=document.getElementById('findings-search');
 var apply=function(){
  var t=q.value.toLowerCase(),n=0;
  rows.forEach(function(tr){
   var ok=shown[tr.dataset.s]!==false&&(!t||tr.textContent.toLowerCase().indexOf(t)>=0);
   tr.hidden=!ok;if(ok)n++;});
  document.getElementById('findings-shown').textContent=n+' of '+rows.length+' findings shown';};
 document.querySelectorAll('button[data-sev]').forEach(function(b){b.addEventListener('click',function(){
  var on=b.getAttribute('aria-pressed')!=='true';b.setAttribute('aria-pressed',String(on));
  shown[b.dataset.sev]=on;apply();});});
 q.addEventListener('input',apply);
 table.querySelectorAll('thead button').forEach(function(b,col){b.addEventListener('click',function(){
  var th=b.parentNode,asc=th.getAttribute('aria-sort')!=='ascending';
  table.querySelectorAll('thead th').forEach(function(h){h.removeAttribute('aria-sort');});
  th.setAttribute('aria-sort',asc?'ascending':'descending');
  var key=function(tr){return col===0?tr.dataset.r:tr.cells[col].textContent;};
  rows.sort(function(x,y){var a=key(x),c=key(y);return (a<c?-1:a>c?1:0)*(asc?1:-1);});
  tbody.append.apply(tbody,rows);});});
}
})();
"""


def html_report(report: Report) -> str:
    statuses = [status_of(f) for f in report.findings]
    index, sections = None, [where_section(report.findings, statuses, report.layout)]
    if report.layout is not None:
        index = _CellIndex(report.layout, report.findings)
        sections += [_rail_map(report.layout, index), _nic_grid(report.layout, index)]
    sections += [_findings_table(report.findings, statuses), _drift(report), _not_run(report)]
    return "".join(
        [
            "<!doctype html>\n<html lang=en><head><meta charset=utf-8>",
            "<meta name=viewport content='width=device-width,initial-scale=1'>",
            f'<meta http-equiv=Content-Security-Policy content="{_policy()}">',
            f"<title>netcfg: {escape(report.fabric)}</title><style>{STYLE}</style></head><body>",
            _header(report, statuses),
            # Sections are laid out when scrolled to: a 32,768-GPU fabric's page opens at once.
            *(f"<section>{s}</section>" for s in sections if s),
            "<aside id=panel hidden><button id=panel-close type=button aria-label=close>×</button>",
            "<h2 id=panel-title></h2><p id=panel-status></p><table class=ft><thead><tr>",
            "".join(f"<th>{h}" for h in _COLUMNS),
            "</thead><tbody id=panel-rows></tbody></table></aside>",
            _json_block("findings-data", _details(report.findings, statuses, index)),
            _json_block("status-text", STATUS_TEXT),
            f"<script>{SCRIPT}</script></body></html>\n",
        ]
    )


_COLUMNS = ("severity", "rule", "device", "port", "expected", "actual", "message", "file:line")


def status_of(finding: Finding) -> str:
    if finding.rule.startswith(UNCHECKED_RULES):
        return "u"
    return _SEVERITY_STATUS[finding.severity]


def _policy() -> str:
    """Nothing but this page's own style and script: no URL of any kind, no other inline script."""
    return (
        f"default-src 'none'; style-src '{_sha256(STYLE)}'; script-src '{_sha256(SCRIPT)}'; "
        "base-uri 'none'; form-action 'none'"
    )


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


class _CellIndex:
    """Which findings each cell shows: a switch its own; a host NIC those of the host naming that
    NIC (by netdev or RDMA device, port ranges expanded; the whole host when no port is named) and
    those of the leaf port cabled to it."""

    def __init__(self, layout: FabricLayout, findings: list[Finding]) -> None:
        self.checked = layout.checked
        self.cells: dict[str, list[int]] = {}
        switches = {s.name for s in layout.switches}
        at_leaf_port: dict[Endpoint, str] = {}
        host_nics: dict[str, dict[str, str]] = {}
        nic_at: dict[str, tuple[str, NicPlace]] = {}
        for host in layout.hosts:
            names = host_nics[host.name] = {}
            for nic in host.nics:
                key = f"{host.name}#{nic.rail}"
                names[nic.netdev] = names[nic.rdma_device] = key
                nic_at[key] = (host.name, nic)
                if nic.leaf_port is not None:
                    at_leaf_port[nic.leaf_port] = key
        for i, f in enumerate(findings):
            ports = expand_ports(f.interface) if f.interface else []
            if f.device in switches:
                self._add(f.device, i)
                for port in ports:
                    self._add(at_leaf_port.get(Endpoint(f.device, port)), i)
            elif f.device in host_nics:
                self._add(f.device, i)
                nics = host_nics[f.device]
                for key in [nics.get(p) for p in ports] if ports else nics.values():
                    self._add(key, i)
        # Only cells with findings are named in the page: the script names the others from the grid.
        self.labels = {k: _nic_label(*nic_at[k]) for k in self.cells if k in nic_at}
        self.status = {k: _worst(findings, ids) for k, ids in self.cells.items()}

    def _add(self, key: str | None, i: int) -> None:
        if key is None:
            return
        ids = self.cells.setdefault(key, [])
        if not ids or ids[-1] != i:
            ids.append(i)

    def of(self, key: str, device: str) -> str:
        """The status class of a cell of `device`: its worst finding, else clean or not checked."""
        return self.status.get(key) or ("o" if device in self.checked else "n")


def _nic_label(host: str, nic: NicPlace) -> str:
    cabled = f", cabled to {nic.leaf_port}" if nic.leaf_port else ""
    return f"{host} {nic.netdev} ({nic.rdma_device}, rail {nic.rail}){cabled}"


def _worst(findings: list[Finding], ids: list[int]) -> str:
    return max((status_of(findings[i]) for i in ids), key=RANK.__getitem__)


def _header(report: Report, statuses: list[str]) -> str:
    counts = report.summary()["findings"]
    badges = "".join(
        f"<span class='badge {st}'>{LABEL[st][0]} {v} {k}</span>"
        for k, v in counts.items()  # type: ignore[union-attr]
        for st in [_SEVERITY_STATUS[Severity(k)]]
    )
    unchecked = len({f.device for f, s in zip(report.findings, statuses, strict=True) if s == "u"})
    errors, warnings = counts["error"], counts["warning"]  # type: ignore[index]
    if errors:
        verdict, cls = f"FAIL: {errors} error(s)", "e"
    elif unchecked:
        verdict, cls = f"INCOMPLETE: {unchecked} device(s) could not be checked", "u"
    elif warnings:
        verdict, cls = f"PASS with {warnings} warning(s)", "w"
    else:
        verdict, cls = "PASS", "o"
    if unchecked and errors:
        verdict += f"; {unchecked} device(s) could not be checked"
    # The label names the status; the legend adds only what the label does not say.
    legend = "".join(
        f"<b class={s}>{LABEL[s]}" + (f" ({escape(t.split(': ', 1)[1])})" if ": " in t else "") + "</b>"
        for s, t in STATUS_TEXT.items()
    )
    return (
        f"<header><h1>netcfg report: {escape(report.fabric)}</h1>"
        f"<p>Source: {escape(report.source)} · {report.created:%Y-%m-%d %H:%M:%S} UTC · "
        f"{escape(report.checked_line())}</p>"
        f"<p>{badges} <span id=verdict class='verdict {cls}'>{LABEL[cls][0]} {escape(verdict)}</span></p>"
        f"<p class=legend>Colour and icon: {legend}</p></header>"
    )


def _rail_map(layout: FabricLayout, index: _CellIndex) -> str:
    """Rails as columns, scalable units as rows, one chip per leaf; spines in their own band above."""
    rails = max([layout.rails, *(s.rail or 0 for s in layout.switches)])
    head = "".join(f"<th>rail {r}" for r in range(1, rails + 1))
    rows = [f"<h2>Rail map</h2><table class=rm id=rail-map><thead><tr><th>{head}</thead><tbody>"]
    for role, name in ((Role.SUPERSPINE, "super-spines"), (Role.SPINE, "spines")):
        band = [s for s in layout.switches if s.role == role]
        if band:
            rows.append(f"<tr class=band><th>{name}<td colspan={rails}>{_chips(band, index)}")
    grid: dict[int, dict[int, list[SwitchPlace]]] = {}
    placeless = []
    for s in layout.switches:
        if s.role != Role.LEAF:
            continue
        if s.su is None or s.rail is None:
            placeless.append(s)
        else:
            grid.setdefault(s.su, {}).setdefault(s.rail, []).append(s)
    for su in sorted(grid):
        cells = "".join(f"<td>{_chips(grid[su].get(r, []), index)}" for r in range(1, rails + 1))
        rows.append(f"<tr><th>SU {su}{cells}")
    if placeless:
        rows.append(f"<tr><th>leaves without rail or SU<td colspan={rails}>{_chips(placeless, index)}")
    rows.append("</tbody></table>")
    return "".join(rows)


def _chips(switches: Iterable[SwitchPlace], index: _CellIndex) -> str:
    out = []
    for s in switches:
        name = escape(s.name)
        # A button to the keyboard too: Tab reaches it, Enter or Space opens its findings.
        status = index.of(s.name, s.name)
        out.append(f'<b class={status} data-k="{name}" role=button tabindex=0>{name}</b>')
    return "".join(out)


def _nic_grid(layout: FabricLayout, index: _CellIndex) -> str:
    """One small table per scalable unit: a row per host, a cell per rail's NIC."""
    rails = max([layout.rails, *(n.rail for h in layout.hosts for n in h.nics)])
    by_su: dict[int | None, list[HostPlace]] = {}
    for host in layout.hosts:
        by_su.setdefault(host.su, []).append(host)
    head = "<tr><th>" + "".join(f"<th>{r}" for r in range(1, rails + 1))
    out = ["<h2>Host NICs by rail</h2><div class=grids id=nic-grid>"]
    for su in sorted(by_su, key=lambda s: (s is None, s or 0)):
        caption = f"SU {su}" if su is not None else "hosts without SU"
        out.append(f"<table class=g><caption>{caption}</caption>{head}")
        for host in by_su[su]:
            name = escape(host.name)
            rail_nic = {n.rail for n in host.nics}
            cells = "".join(
                f"<td class={index.of(f'{host.name}#{r}', host.name) if r in rail_nic else 'x'}>"
                for r in range(1, rails + 1)
            )
            out.append(f'<tr data-h="{name}"><th class={index.of(host.name, host.name)}>{name}{cells}')
        out.append("</table>")
    out.append("</div>")
    return "".join(out)


def _findings_table(findings: list[Finding], statuses: list[str]) -> str:
    if not findings:
        return "<h2>Findings</h2><p>No findings.</p>"
    present = Counter(statuses)
    filters = "".join(
        f"<button type=button aria-pressed=true data-sev={s}>{LABEL[s]} ({present[s]})</button>"
        for s in ORDER
        if present[s]
    )
    rows = [
        f"<h2>Findings ({len(findings)})</h2><div class=filters role=group aria-label='show severities'>",
        f"{filters}<label>search <input type=search id=findings-search></label></div>",
        "<p id=findings-shown aria-live=polite></p><table class=ft id=findings><thead><tr>",
    ]
    rows += [f"<th scope=col><button type=button>{h}</button>" for h in _COLUMNS]
    rows.append("</thead><tbody>")
    for f, s in zip(findings, statuses, strict=True):
        cells = (f.rule, f.device, f.interface or "", f.expected, f.actual, f.message, file_line(f))
        rows.append(
            f"<tr data-s={s} data-r={ORDER.index(s)}><td>{sev(s)}"
            + "".join(f"<td>{escape(c)}" for c in cells)
        )
    rows.append("</tbody></table>")
    return "".join(rows)


def _drift(report: Report) -> str:
    against = report.extra.get("drift_against")
    if report.drift is None:
        return "<h2>Drift since the last audit</h2><p>No earlier audit to compare with.</p>"
    since = f" ({escape(str(against))})" if against else ""
    if not report.drift:
        return f"<h2>Drift since the last audit{since}</h2><p>No changes.</p>"
    rows = [
        f"<h2>Drift since the last audit{since}: {len(report.drift)} change(s)</h2>",
        "<table class=dt id=drift><thead><tr><th>device<th>setting<th>before<th>after</thead><tbody>",
    ]
    rows += [
        "<tr>" + "".join(f"<td>{escape(v)}" for v in (c.device, c.setting, c.before, c.after))
        for c in report.drift
    ]
    rows.append("</tbody></table>")
    return "".join(rows)


def _not_run(report: Report) -> str:
    if not report.not_run:
        return ""
    items = "".join(f"<li>{escape(r)}: {escape(why)}" for r, why in sorted(report.not_run.items()))
    summary = f"{len(report.not_run)} rule(s) not checked on this source"
    return f"<details><summary>{summary}</summary><ul>{items}</ul></details>"


def _details(findings: list[Finding], statuses: list[str], index: _CellIndex | None) -> dict[str, object]:
    return {
        "f": [
            [
                s,
                f.severity.value,
                f.rule,
                f.device,
                f.interface,
                f.expected,
                f.actual,
                f.message,
                file_line(f),
            ]
            for f, s in zip(findings, statuses, strict=True)
        ],
        "c": index.cells if index else {},
        "l": index.labels if index else {},
    }


def _json_block(element_id: str, data: object) -> str:
    """JSON the script reads, inert inside the page: `<`, `>` and `&` are escaped, so no device text
    can close the element or open another one."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f"<script type=application/json id={element_id}>{text}</script>"
