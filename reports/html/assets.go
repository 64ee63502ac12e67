package html

// css is the page's style: readable from a phone's 390 px to a laptop's
// 1280 px (tables scroll sideways in their box), and printable.
const css = `:root{--fg:#1b1f24;--muted:#5b6470;--line:#d5dae0;--bg:#fff;--best:#fff1b8;--head:#f3f5f8;--up:#0a7a33;--down:#b3261e;--link:#0b57d0}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;color:var(--fg);background:var(--bg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
header,main,footer{max-width:1240px;margin:0 auto;padding:0 20px}
header{padding-top:18px}
h1{font-size:1.6rem;margin:.2em 0}
h2{font-size:1.25rem;margin:1.6em 0 .4em;padding-top:.4em;border-top:1px solid var(--line)}
h3{font-size:1.05rem;margin:1.2em 0 .3em}
p{margin:.4em 0}
.lede{color:var(--muted)}
code{font:0.88em/1.3 ui-monospace,"DejaVu Sans Mono",monospace;background:var(--head);padding:0 .25em;border-radius:3px;overflow-wrap:anywhere}
a{color:var(--link);text-decoration:none}
a:hover{text-decoration:underline}
nav{position:sticky;top:0;z-index:2;background:rgba(255,255,255,.96);border-bottom:1px solid var(--line);padding:6px 20px;display:flex;flex-wrap:wrap;gap:6px 16px;align-items:center;justify-content:center}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:2px 14px;font-size:.9rem}
.switch{font-size:.9rem;white-space:nowrap}
select{font:inherit;padding:1px 4px}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;margin:.5em 0;border:1px solid var(--line);border-radius:4px}
table{border-collapse:collapse;font-size:.86rem}
table.results{min-width:100%}
th,td{padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}
thead th{background:var(--head);text-align:center;white-space:nowrap}
th.leaf{cursor:pointer;font-weight:600;font-size:.8rem;color:var(--muted)}
th.leaf[data-sort]::after{content:" ▼"}
th.rowhead,th.label{text-align:left;white-space:nowrap;position:sticky;left:0;background:var(--bg);z-index:1}
thead th.rowhead{background:var(--head)}
.g{border-left:1px solid var(--line)}
td.v,td.e{text-align:center;white-space:nowrap}
td.e{color:var(--muted)}
td.v .m{font-variant-numeric:tabular-nums}
td.v .s,td.v .n{color:var(--muted);font-variant-numeric:tabular-nums}
td.v .n{font-size:.75rem}
td.v .p{display:block;font-size:.72rem;color:var(--muted)}
td .up{color:var(--up)}
td .down{color:var(--down)}
td.best{background:var(--best)}
td.best .m{font-weight:700}
.best-key{background:var(--best);font-weight:700;padding:0 .2em}
tr.rule>*{border-bottom:2px solid #9aa3ad}
table.sorted tr.rule>*{border-bottom:1px solid var(--line)}
tr.reference th,tr.reference td{font-style:italic;color:var(--muted)}
.cmd{font-size:.8rem;color:var(--muted)}
ul.notes{margin:.3em 0;padding-left:1.2em;font-size:.85rem}
li.warn{color:#8a4b00}
li.note{color:var(--muted)}
p.warn{color:#8a4b00}
.prov li{margin:.15em 0}
figure{margin:.8em 0}
figure svg{display:block;max-width:100%;height:auto}
figcaption{font-size:.85rem;color:var(--muted)}
details{margin:.25em 0;border:1px solid var(--line);border-radius:4px;padding:.2em .6em}
details.trouble>summary{color:#8a4b00}
details[open]{background:#fcfcfd}
summary{cursor:pointer}
summary .count{color:var(--muted);font-size:.85rem}
details:target{outline:2px solid var(--link)}
table.runs td,table.runs th{white-space:nowrap;font-size:.8rem}
table.runs td.msg{white-space:normal;min-width:14em;max-width:40em}
tr.st-failed td,tr.st-interrupted td{background:#fdecea}
tr.replaced td{color:var(--muted)}
footer{color:var(--muted);font-size:.8rem;margin:2em auto;border-top:1px solid var(--line);padding-top:.6em}
@media (max-width:600px){
body{font-size:14px}
header,main,footer{padding:0 10px}
nav{padding:4px 10px;justify-content:flex-start}
nav ul{font-size:.8rem;gap:2px 12px;flex-wrap:nowrap;overflow-x:auto;white-space:nowrap;max-width:100%;padding-bottom:2px}
h1{font-size:1.3rem}
th,td{padding:3px 5px}
}
@media print{
nav,.switch,.cmd{display:none}
body{font-size:10pt}
header,main,footer{max-width:none;padding:0}
.scroll{overflow:visible;border:0}
table{font-size:7.5pt}
th.rowhead,th.label{position:static}
a{color:inherit}
section{break-inside:auto}
h2,h3{break-after:avoid}
figure,tr{break-inside:avoid}
td.best{background:none}
details{border:0;padding:0}
#runs{display:none}
}
`

// script switches the unknown score and the scorers' metric, sorts a
// table by a clicked column (again: back to the table's order) and opens
// the runs a cell links to.
const script = `(function(){
"use strict";
var score=document.getElementById("score");
if(score){score.addEventListener("change",function(){
document.querySelectorAll(".score-view").forEach(function(d){d.hidden=d.getAttribute("data-score")!==score.value;});
});}
document.querySelectorAll("select.metric-switch").forEach(function(sel){
sel.addEventListener("change",function(){
document.querySelectorAll(".metric-view").forEach(function(d){
if(d.getAttribute("data-group")===sel.getAttribute("data-group")){d.hidden=d.getAttribute("data-metric")!==sel.value;}
});
});
});
function openTarget(){
var id=decodeURIComponent(location.hash.slice(1));
var el=id?document.getElementById(id):null;
if(el&&el.tagName==="DETAILS"){el.open=true;}
}
window.addEventListener("hashchange",openTarget);
openTarget();
function value(tr,col){
var m=tr.cells[col+1]?tr.cells[col+1].querySelector(".m"):null;
return m?parseFloat(m.textContent):NaN;
}
document.querySelectorAll("table.results th.leaf").forEach(function(th){
th.addEventListener("click",function(){
var table=th.closest("table"),body=table.tBodies[0],col=th.cellIndex;
var desc=!th.hasAttribute("data-sort");
table.querySelectorAll("th.leaf").forEach(function(h){h.removeAttribute("data-sort");});
var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){
var ra=a.classList.contains("reference"),rb=b.classList.contains("reference");
if(desc&&ra!==rb){return ra?1:-1;}
if(desc){
var x=value(a,col),y=value(b,col);
if(isNaN(x)!==isNaN(y)){return isNaN(x)?1:-1;}
if(!isNaN(x)&&x!==y){return y-x;}
}
return parseInt(a.getAttribute("data-i"),10)-parseInt(b.getAttribute("data-i"),10);
});
rows.forEach(function(r){body.appendChild(r);});
if(desc){th.setAttribute("data-sort","desc");}
table.classList.toggle("sorted",desc);
});
});
})();
`
