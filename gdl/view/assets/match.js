const $ = id => document.getElementById(id);
const esc = s => String(s).replace(/[&<>"]/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
let current = 0, follow = true;
window.gdlLive = [];
$('title').textContent = DATA.game;
$('sub').textContent = DATA.roles.map((r, i) => r + ': ' + (DATA.players[i] || '?')).join(' · ') +
  ` · start clock ${DATA.startClock} s, play clock ${DATA.playClock} s · ${DATA.matchId}`;
if (DATA.gdl2) {
  $('viewpick').hidden = false;
  const options = ['all'].concat(DATA.roles.filter(r => r.toLowerCase() !== 'random'));
  $('view').innerHTML = options.map(r => `<option value="${esc(r)}">${r === 'all' ? 'everything' : esc(r) + "'s view"}</option>`).join('');
  $('view').onchange = () => show(current);
}
function goalsHtml(end) {
  if (end.aborted) return `<p class="error">aborted: ${esc(end.abortReason)}</p>`;
  if (!end.completed) return DATA.live ? '<p>playing…</p>' : '<p>not completed</p>';
  return '<h2>goals</h2><table>' + DATA.roles.map((r, i) => end.goals[i] === null || end.goals[i] === undefined ? '' :
    `<tr><td>${esc(r)}</td><td class="goal">${end.goals[i]}</td></tr>`).join('') + '</table>';
}
function show(i) {
  i = Math.max(0, Math.min(i, DATA.steps.length - 1));
  current = i; follow = i === DATA.steps.length - 1;
  const step = DATA.steps[i], view = DATA.gdl2 ? $('view').value : 'all';
  const role = DATA.roles.indexOf(view);
  const pic = step.picture;
  if (role < 0) {
    $('boardtitle').textContent = 'board';
    $('board').innerHTML = pic.svg || '<p class="none">no board found: the state is listed below</p>';
  } else {
    $('boardtitle').textContent = `what ${view} has seen`;
    $('board').innerHTML = (step.views && step.views[role].svg) || '<p class="none">(no board in its percepts)</p>';
  }
  $('counters').innerHTML = (role < 0 ? pic.control.map(c => `<div>to move: <span class="turn">${esc(c)}</span></div>`).join('') +
    pic.counters.map(c => `<div>${esc(c[0])}: <b>${esc(c[1])}</b></div>`).join('') : '');
  let rows = '<tr><th>role</th><th>player</th><th>move</th><th>time</th><th>error</th></tr>';
  DATA.roles.forEach((r, k) => {
    const nature = r.toLowerCase() === 'random' && DATA.nature;
    const hide = role >= 0 && k !== role;
    const move = step.moves ? (hide ? '<span class="hidden">?</span>' : esc(step.moves[k])) : '—';
    const t = step.times && step.times[k] !== null && step.times[k] !== undefined ? step.times[k].toFixed(2) + ' s' : '';
    const err = step.errors[k] && !hide ? `<span class="error">${esc(step.errors[k])}</span>` : '';
    rows += `<tr class="${nature ? 'nature' : ''}"><td>${esc(r)}</td><td>${nature ? 'nature' : esc(DATA.players[k] || '')}</td>` +
      `<td class="move">${move}</td><td>${t}</td><td>${err}</td></tr>`;
  });
  $('moves').innerHTML = rows;
  let seen = '';
  if (step.percepts) {
    seen = '<h2>percepts</h2><table>' + DATA.roles.map((r, k) => (role >= 0 && k !== role) || r.toLowerCase() === 'random' ? '' :
      `<tr><td>${esc(r)}</td><td><code>${step.percepts[k].map(esc).join(' ') || '—'}</code></td></tr>`).join('') + '</table>';
  }
  $('percepts').innerHTML = seen;
  $('goals').innerHTML = i === DATA.steps.length - 1 && role < 0 ? goalsHtml(DATA.end) : '';
  const listed = role < 0 ? pic.facts : step.views ? step.views[role].facts : [];
  $('factstitle').textContent = role < 0 ? 'other fluents' : 'other percepts so far';
  $('factstitle').hidden = !listed.length;
  $('facts').innerHTML = listed.map(f => `<li>${esc(f)}</li>`).join('');
  $('slider').max = DATA.steps.length - 1; $('slider').value = i;
  $('where').textContent = `step ${i} of ${DATA.steps.length - 1}` + (i === 0 ? ' (initial state)' : '');
  document.querySelectorAll('#steps a').forEach(a => a.classList.toggle('current', +a.dataset.step === i));
  if (location.hash !== '#step-' + i) history.replaceState(null, '', '#step-' + i);
}
function links() {
  $('steps').innerHTML = DATA.steps.map((s, i) => `<a href="#step-${i}" data-step="${i}" id="link-${i}">${i}</a>`).join('');
}
$('first').onclick = () => show(0); $('last').onclick = () => show(DATA.steps.length - 1);
$('prev').onclick = () => show(current - 1); $('next').onclick = () => show(current + 1);
$('slider').oninput = e => show(+e.target.value);
window.addEventListener('hashchange', () => { const m = /^#step-(\d+)$/.exec(location.hash); if (m) show(+m[1]); });
document.addEventListener('keydown', e => {
  if (e.target.tagName === 'SELECT' || e.target.tagName === 'INPUT' && e.target.type !== 'range') return;
  const to = {ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: DATA.steps.length - 1}[e.key];
  if (to !== undefined) { e.preventDefault(); show(to); }
});
links();
const start = /^#step-(\d+)$/.exec(location.hash);
show(start ? +start[1] : DATA.live ? DATA.steps.length - 1 : 0);
if (DATA.live) {
  $('status').textContent = 'live';
  const events = new EventSource('events');
  events.onmessage = e => {
    const m = JSON.parse(e.data);
    if (m.type === 'step') {
      window.gdlLive.push(m.step.index);
      DATA.steps[m.step.index] = m.step;
      links();
      if (follow) show(DATA.steps.length - 1); else show(current);
    } else if (m.type === 'end') {
      DATA.end = m.end; DATA.live = false; $('status').textContent = 'finished'; events.close(); show(current);
      document.body.dataset.finished = 'true';
    }
  };
}
