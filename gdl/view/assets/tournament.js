const $ = id => document.getElementById(id);
const esc = s => String(s).replace(/[&<>"]/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
function draw(d) {
  $('title').textContent = d.game + ' tournament';
  $('sub').textContent = `${d.matches.filter(m => m).length} match(es) finished`;
  $('standings').innerHTML = '<tr><th>player</th><th>wins</th><th>draws</th><th>losses</th><th>mean goal</th><th>errors</th></tr>' +
    d.standings.map(s => `<tr><td>${esc(s.player)}</td><td>${s.wins}</td><td>${s.draws}</td><td>${s.losses}</td>` +
      `<td>${s.mean === null || isNaN(s.mean) ? '-' : s.mean.toFixed(1)}</td><td>${s.errors}</td></tr>`).join('');
  $('matches').innerHTML = '<tr><th>match</th><th>players</th><th>goals</th><th>steps</th></tr>' +
    d.matches.map((m, i) => m ? `<tr><td><a href="match/${i}/">match ${i}</a></td><td>${m.players.map(esc).join(' vs ')}</td>` +
      `<td>${m.goals ? m.goals.join(' - ') : 'aborted'}</td><td>${m.steps}</td></tr>` : '').join('');
}
draw(DATA);
const events = new EventSource('events');
events.onmessage = e => { const m = JSON.parse(e.data); if (m.type === 'tournament') draw(m); else events.close(); };
