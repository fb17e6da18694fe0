/* One live match (GET /live/T-N): the table as it is released, drawn with
 * the replay viewer's renderers (jaViewer.kit of /matches/replay.js, loaded
 * first), the newest frame only, and a seat's view for its author (token ->
 * ticket -> stream), drawn the same way. The renderers escape every text
 * they put in as HTML; every other text goes in with textContent. Script
 * errors are written into #errlog. */
(function(){var id=document.getElementById('match').getAttribute('data-id');
function $(x){return document.getElementById(x);}
window.addEventListener('error',function(e){$('errlog').textContent+='error: '+e.message+'\n';});
function add(p,tag,t){var e=document.createElement(tag);e.textContent=t;p.appendChild(e);return e;}
var K=null,M=null;
/* The match event: the seats by name, and the renderers of its game (the
 * field table of stream version 2; labels of plays are not streamed). */
function begin(d){M=d;if(d.fields)K=jaViewer.kit({game:d.game,seats:d.seats.length,
 players:d.seats.map(function(b){return {name:b};}),fields:d.fields,labels:{},
 score_unit:d.score_unit});
 var ul=$('seats');if(ul.childNodes.length)return;
 d.seats.forEach(function(b,i){add(ul,'li','seat '+i+': '+b);var o=document.createElement('option');
  o.value=i;o.textContent='seat '+i+' ('+b+')';$('seat').appendChild(o);});}
/* Observation o drawn into box's table: mine the seat whose hand it shows
 * (-1: the public observation), and the running scores. */
function draw(box,o,mine){if(!K)return;$(box+'-table').innerHTML=K.picture(o,mine);
 var t=$(box+'-scores');t.textContent='';var h=add(t,'tr','');add(h,'th','player');add(h,'th','score');
 for(var s=0;s<M.seats.length;s++){var tr=add(t,'tr','');add(tr,'td',M.seats[s]);
  add(tr,'td',String(K.score(o,s))).className='score';}}
function ended(box,d){var p=$(box+'-status');p.textContent='';
 if(d.error){p.textContent='The match could not be played: '+d.error;return;}
 add(p,'span','The match ended after '+d.decisions+' decisions: scores '+
  d.scores.join(', ')+'; places '+d.places.join(', ')+'. ');
 if(d.replay){var a=add(p,'a','Watch its replay');a.href=d.replay;a.id=box+'-replay';}}
function stream(url,box,seat){var es=new EventSource(url);var n=0;
 es.onmessage=function(ev){var d=JSON.parse(ev.data);
  if(d.type=='match'){begin(d);
   if(box=='pub')$('pub-status').textContent='Playing; shown '+d.delay+' decisions behind.';}
  else if(d.type=='frame'){n++;$('pub-pos').textContent=d.decision?'decision '+d.decision:'the deal';
   $('pub-line').textContent=d.line;if(d.public)draw('pub',d.public,-1);
   $('pub-count').textContent=String(n);}
  else if(d.type=='seen'){n++;draw('seat',d.obs,seat);$('seat-count').textContent=String(n);}
  else if(d.type=='end'){es.close();ended(box,d);}};
 es.onerror=function(){es.close();if($(box+'-replay'))return;var p=$(box+'-status');
  p.textContent='The stream closed: the match is not being played (any more). ';
  var a=add(p,'a','Its replay, once recorded');a.href='/matches/'+id+'.html';};}
stream('/api/live/'+id+'/events','pub',-1);
$('seatform').onsubmit=function(ev){ev.preventDefault();$('seat-status').textContent='';
 fetch('/api/live/'+id+'/ticket',{method:'POST',headers:{'Authorization':'Bearer '+
  $('token').value.trim(),'Content-Type':'application/json'},
  body:JSON.stringify({seat:parseInt($('seat').value,10)})}).then(function(r){
  return r.json().then(function(j){if(!r.ok){$('seat-status').textContent=
   'Refused ('+r.status+'): '+j.error;return;}
   $('seat-status').textContent='Seat '+j.seat+'\'s view:';stream(j.events,'seat',j.seat);});});};
})();
