/* The live matches (GET /live), refreshed from /api/live on every event. */
function load(){fetch('/api/live').then(function(r){return r.json();}).then(function(d){
 var ul=document.getElementById('live');ul.textContent='';
 document.getElementById('delay').textContent=String(d.delay);
 d.matches.forEach(function(m){var li=document.createElement('li');
  var a=document.createElement('a');a.href=m.page;a.textContent='match '+m.id;
  li.appendChild(a);li.appendChild(document.createTextNode(': '+m.seats.join(', ')+
  ' ('+m.steps+' frames released)'));ul.appendChild(li);});
 if(!d.matches.length){var li=document.createElement('li');
  li.textContent='none right now';ul.appendChild(li);}});}
load();var t=null;var es=new EventSource('/api/events');
es.onmessage=function(){if(!t)t=setTimeout(function(){t=null;load();},1000);};
