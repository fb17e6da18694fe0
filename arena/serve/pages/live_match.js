/* One live match (GET /live/T-N): the table as it is released, drawn with
 * the replay viewer's renderers (jaViewer.kit of /matches/replay.js, loaded
 * first), the newest frame, and a seat's view for its author (token ->
 * ticket -> stream), drawn the same way; beside each, its move history
 * (jaViewer.hist and jaViewer.pane, as the replay page has it): a click on
 * a move shows the table at that move until "follow" is pressed. The
 * renderers escape every text they put in as HTML; every other text goes
 * in with textContent. Script errors are written into #errlog. */
(function(){var id=document.getElementById('match').getAttribute('data-id');
function $(x){return document.getElementById(x);}
window.addEventListener('error',function(e){$('errlog').textContent+='error: '+e.message+'\n';});
function add(p,tag,t){var e=document.createElement(tag);e.textContent=t;p.appendChild(e);return e;}
var K=null,M=null,H=null,D=null;
/* The match event: the seats by name, and the renderers of its game (the
 * field table of stream version 2; the labels of plays its observations
 * name come with the frames, version 3). */
function begin(d){M=d;if(d.fields){D={game:d.game,seats:d.seats.length,
 players:d.seats.map(function(b){return {name:b};}),fields:d.fields,labels:{},
 score_unit:d.score_unit};K=jaViewer.kit(D);H=jaViewer.hist(D,K);}
 var ul=$('seats');if(ul.childNodes.length)return;
 d.seats.forEach(function(b,i){add(ul,'li','seat '+i+': '+b);var o=document.createElement('option');
  o.value=i;o.textContent='seat '+i+' ('+b+')';$('seat').appendChild(o);});}
/* Observation o drawn into box's table: mine the seat whose hand it shows
 * (-1: the public observation), and the running scores. */
function draw(box,o,mine){if(!K)return;$(box+'-table').innerHTML=K.picture(o,mine);
 var t=$(box+'-scores');t.textContent='';var h=add(t,'tr','');add(h,'th','player');add(h,'th','score');
 for(var s=0;s<M.seats.length;s++){var tr=add(t,'tr','');add(tr,'td',M.seats[s]);
  add(tr,'td',String(K.score(o,s))).className='score';}}
/* A box's frames as they came (each its observation and position), its
 * history, and the frame a click pinned (-1: the newest is shown). */
var V={};
function view(box,mine){var old=V[box];if(old&&old.es)old.es.close();
 var v=V[box]={frames:[],after:0,prev:null,pin:-1,mine:mine,
  moves:old?old.moves:jaViewer.pane($(box+'-history'),function(i){pin(box,i);})};
 v.moves.clear();$(box+'-follow').hidden=true;$(box+'-follow').onclick=function(){pin(box,-1);};return v;}
function show(box,i){var v=V[box],fr=v.frames[i];draw(box,fr.o,v.mine);v.moves.show(i);
 if(box=='pub'){$('pub-pos').textContent=fr.pos;$('pub-line').textContent=fr.line;}}
function pin(box,i){var v=V[box],n=v.frames.length-1;v.pin=i<n?i:-1;
 $(box+'-follow').hidden=v.pin<0;show(box,v.pin<0?n:i);}
/* A frame of a box: observation o, the box's own decisions there (acts,
 * a seat's view), the labels its events name; its moves added. */
function frame(box,o,acts,labels,pos,line){var v=V[box];if(!H)return;
 if(labels)Object.keys(labels).forEach(function(c){D.labels[c]=labels[c];});
 acts.forEach(function(a){D.labels[a.code]=a.label;});
 var r=H.step(v.prev,o,v.after,acts),i=v.frames.length;
 v.frames.push({o:o,pos:pos,line:line});v.moves.add(i,r.rows);v.after=r.last;v.prev=o;
 if(v.pin<0)show(box,i);}
function ended(box,d){var p=$(box+'-status');p.textContent='';
 if(d.error){p.textContent='The match could not be played: '+d.error;return;}
 add(p,'span','The match ended after '+d.decisions+' decisions: scores '+
  d.scores.join(', ')+'; places '+d.places.join(', ')+'. ');
 if(d.replay){var a=add(p,'a','Watch its replay');a.href=d.replay;a.id=box+'-replay';}}
function stream(url,box,seat){var es=new EventSource(url);var n=0;view(box,seat).es=es;
 es.onmessage=function(ev){var d=JSON.parse(ev.data);
  if(d.type=='match'){begin(d);
   if(box=='pub')$('pub-status').textContent='Playing; shown '+d.delay+' decisions behind.';}
  else if(d.type=='frame'){n++;if(d.public)frame('pub',d.public,[],d.labels,
    d.decision?'decision '+d.decision:'the deal',d.line);
   $('pub-count').textContent=String(n);}
  else if(d.type=='seen'){n++;frame('seat',d.obs,d.action?[{seat:seat,code:d.action.code,
    label:d.action.label,forced:d.action.forced,fault:d.action.fault}]:[],d.labels,'','');
   $('seat-count').textContent=String(n);}
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
