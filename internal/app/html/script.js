// pollfit report: the budget slider and the copy buttons. Everything else
// on the page works without this script.
"use strict";
document.documentElement.classList.replace("nojs", "js");

var SVGNS = "http://www.w3.org/2000/svg";

function el(name, attrs, text) {
  var e = document.createElementNS(SVGNS, name);
  for (var k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}

function setupSlider(box) {
  var id = box.dataset.part;
  var data = JSON.parse(document.getElementById(id + "-steps").textContent);
  var range = document.getElementById(id + "-range");
  var label = document.getElementById(id + "-label");
  var spec = document.getElementById(id + "-spec");
  var figures = document.getElementById(id + "-figures");
  var polls = document.getElementById(id + "-polls");
  var table = document.querySelector("#" + id + "-budget .table table");
  // A mark per chart, moved to the step's point.
  var marks = [];
  document.querySelectorAll("#" + id + "-budget .charts svg").forEach(function (svg) {
    var c = el("circle", {r: 6, fill: "none", stroke: "#d62728", "stroke-width": 2.5, "class": "mark"});
    svg.appendChild(c);
    marks.push(c);
  });
  function show(i) {
    var s = data.steps[i];
    label.textContent = s.label;
    spec.textContent = s.spec;
    figures.textContent = "";
    s.figures.forEach(function (f) {
      var div = document.createElement("div");
      var dt = document.createElement("dt");
      var dd = document.createElement("dd");
      dt.textContent = f.Label;
      dd.textContent = f.Value + (f.Note ? " " + f.Note : "");
      div.append(dt, dd);
      figures.append(div);
    });
    polls.textContent = "";
    polls.appendChild(el("line", {x1: 10, x2: 990, y1: 36, y2: 36, "class": "axis"}));
    (data.axis || []).forEach(function (t) {
      var x = 10 + 980 * t.at;
      polls.appendChild(el("line", {x1: x, x2: x, y1: 36, y2: 41, "class": "axis"}));
      polls.appendChild(el("text", {x: x, y: 53, "text-anchor": "middle"}, t.label));
    });
    s.polls.forEach(function (p) {
      var x = 10 + 980 * p;
      polls.appendChild(el("line", {x1: x, x2: x, y1: 8, y2: 34}));
    });
    if (s.clock) {
      // Polls at instants of the clock: ages differ from item to item.
      var x0 = 10 + 980 * s.clock.from, x1 = 10 + 980 * s.clock.to;
      polls.appendChild(el("rect", {x: x0, y: 16, width: Math.max(x1 - x0, 1), height: 18, "class": "clock"}));
      polls.appendChild(el("text", {x: x0 + 4, y: 12, "class": "clock"}, s.clock.text));
    }
    marks.forEach(function (m, k) {
      var at = s.marks && s.marks[k];
      m.style.display = at ? "" : "none";
      if (at) {
        m.setAttribute("cx", at[0]);
        m.setAttribute("cy", at[1]);
      }
    });
    if (table) {
      table.querySelectorAll("tbody tr").forEach(function (tr) {
        tr.classList.toggle("mark", tr.dataset.row === String(i));
      });
    }
  }
  range.addEventListener("input", function () { show(+range.value); });
  show(+range.value);
}

function setupCopy(pre) {
  var b = document.createElement("button");
  b.type = "button";
  b.className = "copy";
  b.textContent = "Copy";
  b.addEventListener("click", function () {
    var text = pre.querySelector("code").textContent;
    function done(ok) {
      b.textContent = ok ? "Copied" : "Select and copy";
      setTimeout(function () { b.textContent = "Copy"; }, 1500);
    }
    function fallback() {
      var r = document.createRange();
      r.selectNodeContents(pre.querySelector("code"));
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(r);
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      done(ok);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, fallback);
    } else {
      fallback();
    }
  });
  pre.insertBefore(b, pre.firstChild);
}

document.querySelectorAll(".slider[data-part]").forEach(setupSlider);
document.querySelectorAll("pre.code").forEach(setupCopy);
