/* One live match (GET /live/T-N): the public view as it is released, and a
 * seat's view for its author (token -> ticket -> stream). Every text is put
 * in with textContent, never as HTML. */
(function(){var id=document.getElementById('match').getAttribute('data-id');
function $(x){return document.getElementById(x);}
function add(p,tag,t){var e=document.createElement(tag);e.textContent=t;p.appendChild(e);return e;}
function ended(box,d){var p=$(box+'-status');p.textContent='';
 if(d.error){p.textContent='The match could not be played: '+d.error;return;}
 add(p,'span','The match ended after '+d.decisions+' decisions: scores '+
  d.scores.join(', ')+'; places '+d.places.join(', ')+'. ');
 if(d.replay){var a=add(p,'a','Watch its replay');a.href=d.replay;a.id=box+'-replay';}}
function stream(url,box){var es=new EventSource(url);var n=0;
 es.onmessage=function(ev){var d=JSON.parse(ev.data);
  if(d.type=='match'){var ul=$('seats');if(!ul.childNodes.length)d.seats.forEach(function(b,i){
   add(ul,'li','seat '+i+': '+b);var o=document.createElement('option');o.value=i;
   o.textContent='seat '+i+' ('+b+')';$('seat').appendChild(o);});
   if(box=='pub')$('pub-status').textContent='Playing; shown '+d.delay+' decisions behind.';}
  else if(d.type=='frame'){n++;add($('frames'),'li','decision '+d.decision+': '+d.line);
   $('pub-count').textContent=String(n);}
  else if(d.type=='seen'){n++;var t=$('obs');t.textContent='';
   Object.keys(d.obs).forEach(function(k){var tr=add(t,'tr','');add(tr,'th',k);
    var v=d.obs[k];add(tr,'td',Array.isArray(v)?v.join(' '):String(v));});
   $('seat-count').textContent=String(n);}
  else if(d.type=='end'){es.close();ended(box,d);}};
 es.onerror=function(){es.close();if($(box+'-replay'))return;var p=$(box+'-status');
  p.textContent='The stream closed: the match is not being played (any more). ';
  var a=add(p,'a','Its replay, once recorded');a.href='/matches/'+id+'.html';};}
stream('/api/live/'+id+'/events','pub');
$('seatform').onsubmit=function(ev){ev.preventDefault();$('seat-status').textContent='';
 fetch('/api/live/'+id+'/ticket',{method:'POST',headers:{'Authorization':'Bearer '+
  $('token').value.trim(),'Content-Type':'application/json'},
  body:JSON.stringify({seat:parseInt($('seat').value,10)})}).then(function(r){
  return r.json().then(function(j){if(!r.ok){$('seat-status').textContent=
   'Refused ('+r.status+'): '+j.error;return;}
   $('seat-status').textContent='Seat '+j.seat+'\'s view:';stream(j.events,'seat');});});};
})();
