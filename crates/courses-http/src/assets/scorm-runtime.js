// The SCORM runtime API for the SCOs of imported packages: window.API
// (SCORM 1.2: LMSInitialize, LMSGetValue, LMSSetValue, LMSCommit, LMSFinish,
// LMSGetLastError, LMSGetErrorString, LMSGetDiagnostic) and
// window.API_1484_11 (SCORM 2004: Initialize, GetValue, SetValue, Commit,
// Terminate, GetLastError, GetErrorString, GetDiagnostic).
//
// The service adds this script to every HTML page of a package it serves.
// Those pages run in an opaque-origin sandbox, so they cannot reach the
// learner player's window (nor anything of the service's origin): the API is
// defined in the SCO's own window, where SCORM's API discovery (the window,
// then its parents, then the opener) finds it first. The player hands the
// learner's saved data in through the frame's name ("svc-scorm:" + JSON),
// which the browser keeps across the SCO's own page loads; every commit and
// the finish are posted to the parent window, which saves them and records
// the completion. Frames inside a package relay those messages upwards.
(function () {
  'use strict';
  if (window.__svcScorm) return;
  var MARK = 'svc-scorm:';

  // A parent page of the same package that already holds the runtime
  // (possible when the content has an origin of its own): share it.
  try {
    var up = window.parent;
    if (up && up !== window && up.__svcScorm) {
      window.__svcScorm = up.__svcScorm;
      window.API = up.API;
      window.API_1484_11 = up.API_1484_11;
      return;
    }
  } catch (e) { /* the parent is the player, on another origin */ }

  var init = {};
  try {
    if (typeof window.name === 'string' && window.name.indexOf(MARK) === 0) init = JSON.parse(window.name.slice(MARK.length)) || {};
  } catch (e) { init = {}; }
  var saved = init.state && typeof init.state === 'object' ? init.state : {};
  var cmi = {};
  Object.keys(saved).forEach(function (k) { if (typeof saved[k] === 'string') cmi[k] = saved[k]; });
  var learner = init.learner || {};
  var browse = init.mode === 'browse';
  var mastery = typeof init.mastery === 'number' ? init.mastery : null;
  var resumed = cmi['cmi.core.exit'] === 'suspend' || cmi['cmi.exit'] === 'suspend';
  var entry = Object.keys(cmi).length === 0 ? 'ab-initio' : (resumed ? 'resume' : '');
  delete cmi['cmi.core.exit'];
  delete cmi['cmi.exit'];

  function send(op) {
    var message = { svcScorm: 1, op: op, block: init.block || null, cmi: Object.assign({}, cmi) };
    try { window.parent.postMessage(message, '*'); } catch (e) { /* no parent */ }
    try { init.state = message.cmi; window.name = MARK + JSON.stringify(init); } catch (e) { /* name too large */ }
  }

  // Messages of frames inside the package go up to the player.
  window.addEventListener('message', function (event) {
    var data = event.data;
    if (!data || data.svcScorm !== 1 || !event.source || event.source === window) return;
    var fromChild = false;
    try { fromChild = event.source.parent === window; } catch (e) { fromChild = false; }
    if (fromChild && window.parent !== window) window.parent.postMessage(data, '*');
  });

  // ---- values ----
  function vocabulary(words) { return function (v) { return words.indexOf(v) >= 0 ? 0 : 'type'; }; }
  function characters(max) { return function (v) { return v.length <= max ? 0 : 'range'; }; }
  function real(min, max) {
    return function (v) {
      if (!/^-?(\d+(\.\d*)?|\.\d+)$/.test(v)) return 'type';
      var n = Number(v);
      return (min !== null && n < min) || (max !== null && n > max) ? 'range' : 0;
    };
  }
  var anything = function () { return 0; };
  var timespan12 = function (v) { return /^\d{2,4}:\d{2}:\d{2}(\.\d{1,2})?$/.test(v) ? 0 : 'type'; };
  var duration = function (v) { return /^P(\d+Y)?(\d+M)?(\d+D)?(T(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/.test(v) && v !== 'P' && !/T$/.test(v) ? 0 : 'type'; };

  // Each element: [access ('r', 'w', 'rw'), check or fixed value].
  var model12 = {
    'cmi.core._children': ['r', 'student_id,student_name,lesson_location,credit,lesson_status,entry,score,total_time,lesson_mode,exit,session_time'],
    'cmi.core.student_id': ['r', String(learner.id || '')],
    'cmi.core.student_name': ['r', String(learner.name || '')],
    'cmi.core.lesson_location': ['rw', characters(255)],
    'cmi.core.credit': ['r', browse ? 'no-credit' : 'credit'],
    'cmi.core.lesson_status': ['rw', vocabulary(['passed', 'completed', 'failed', 'incomplete', 'browsed', 'not attempted'])],
    'cmi.core.entry': ['r', entry],
    'cmi.core.score._children': ['r', 'raw,min,max'],
    'cmi.core.score.raw': ['rw', real(0, 100)],
    'cmi.core.score.min': ['rw', real(0, 100)],
    'cmi.core.score.max': ['rw', real(0, 100)],
    'cmi.core.total_time': ['r', '0000:00:00.00'],
    'cmi.core.lesson_mode': ['r', browse ? 'browse' : 'normal'],
    'cmi.core.exit': ['w', vocabulary(['time-out', 'suspend', 'logout', ''])],
    'cmi.core.session_time': ['w', timespan12],
    'cmi.suspend_data': ['rw', characters(4096)],
    'cmi.launch_data': ['r', String(init.launchData || '')],
    'cmi.comments': ['rw', characters(4096)],
    'cmi.comments_from_lms': ['r', ''],
    'cmi.student_data._children': ['r', 'mastery_score,max_time_allowed,time_limit_action'],
    'cmi.student_data.mastery_score': ['r', mastery === null ? '' : String(mastery)],
    'cmi.student_data.max_time_allowed': ['r', ''],
    'cmi.student_data.time_limit_action': ['r', 'continue,no message'],
    'cmi.student_preference._children': ['r', 'audio,language,speed,text'],
    'cmi.student_preference.audio': ['rw', real(-1, 100)],
    'cmi.student_preference.language': ['rw', characters(255)],
    'cmi.student_preference.speed': ['rw', real(-100, 100)],
    'cmi.student_preference.text': ['rw', real(-1, 1)],
    'cmi.objectives._children': ['r', 'id,score,status'],
    'cmi.interactions._children': ['r', 'id,objectives,time,type,correct_responses,weighting,student_response,result,latency'],
  };
  var model2004 = {
    'cmi._version': ['r', '1.0'],
    'cmi.completion_status': ['rw', vocabulary(['completed', 'incomplete', 'not attempted', 'unknown'])],
    'cmi.completion_threshold': ['r', typeof init.completionThreshold === 'number' ? String(init.completionThreshold) : null],
    'cmi.credit': ['r', browse ? 'no-credit' : 'credit'],
    'cmi.entry': ['r', entry],
    'cmi.exit': ['w', vocabulary(['time-out', 'suspend', 'logout', 'normal', ''])],
    'cmi.launch_data': ['r', init.launchData ? String(init.launchData) : null],
    'cmi.learner_id': ['r', String(learner.id || '')],
    'cmi.learner_name': ['r', String(learner.name || '')],
    'cmi.location': ['rw', characters(1000)],
    'cmi.max_time_allowed': ['r', null],
    'cmi.mode': ['r', browse ? 'browse' : 'normal'],
    'cmi.progress_measure': ['rw', real(0, 1)],
    'cmi.scaled_passing_score': ['r', mastery === null ? null : String(mastery / 100)],
    'cmi.score._children': ['r', 'scaled,raw,min,max'],
    'cmi.score.scaled': ['rw', real(-1, 1)],
    'cmi.score.raw': ['rw', real(null, null)],
    'cmi.score.min': ['rw', real(null, null)],
    'cmi.score.max': ['rw', real(null, null)],
    'cmi.session_time': ['w', duration],
    'cmi.success_status': ['rw', vocabulary(['passed', 'failed', 'unknown'])],
    'cmi.suspend_data': ['rw', characters(64000)],
    'cmi.time_limit_action': ['r', 'continue,no message'],
    'cmi.total_time': ['r', 'PT0H0M0S'],
    'cmi.comments_from_learner._children': ['r', 'comment,location,timestamp'],
    'cmi.comments_from_lms._children': ['r', 'comment,location,timestamp'],
    'cmi.comments_from_lms._count': ['r', '0'],
    'cmi.interactions._children': ['r', 'id,type,objectives,timestamp,correct_responses,weighting,learner_response,result,latency,description'],
    'cmi.objectives._children': ['r', 'id,score,success_status,completion_status,progress_measure,description'],
    'cmi.learner_preference._children': ['r', 'audio_level,language,delivery_speed,audio_captioning'],
    'cmi.learner_preference.audio_level': ['rw', real(0, null)],
    'cmi.learner_preference.language': ['rw', characters(250)],
    'cmi.learner_preference.delivery_speed': ['rw', real(0, null)],
    'cmi.learner_preference.audio_captioning': ['rw', vocabulary(['-1', '0', '1'])],
    'adl.nav.request': ['rw', anything],
    'adl.nav.request_valid.continue': ['r', 'true'],
    'adl.nav.request_valid.previous': ['r', 'true'],
  };

  // Collections (objectives, interactions, comments): entries are added in
  // order, n at most the current count; their fields are kept as given.
  var collection = /^(cmi\.(objectives|interactions|comments_from_learner))\.(\d+)\.([a-z_.0-9]+)$/;
  function lookup(model, name) {
    if (Object.prototype.hasOwnProperty.call(model, name)) return { access: model[name][0], rule: model[name][1] };
    var count = /^(cmi\.(objectives|interactions|comments_from_learner))\._count$/.exec(name);
    if (count) return { access: 'r', rule: String(countOf(count[1])) };
    var item = collection.exec(name);
    if (item) return { access: 'rw', rule: anything, collection: item[1], index: Number(item[3]) };
    return null;
  }
  function countOf(prefix) {
    var n = 0;
    Object.keys(cmi).forEach(function (k) {
      if (k.indexOf(prefix + '.') === 0) { var i = Number(k.slice(prefix.length + 1).split('.')[0]); if (i + 1 > n) n = i + 1; }
    });
    return n;
  }

  // ---- the two APIs over one data store ----
  function runtime(edition) {
    var v2004 = edition === '2004';
    var model = v2004 ? model2004 : model12;
    var state = 'new';
    var lastError = '0';
    var codes = v2004
      ? { ok: '0', general: '101', already: '103', terminated: '104', termBefore: '112', termAfter: '113', getBefore: '122', getAfter: '123',
          setBefore: '132', setAfter: '133', commitBefore: '142', commitAfter: '143', argument: '201', getFailure: '301', undefined: '401',
          notInitialized: '403', readOnly: '404', writeOnly: '405', type: '406', range: '407' }
      : { ok: '0', general: '101', already: '101', terminated: '101', termBefore: '301', termAfter: '101', getBefore: '301', getAfter: '101',
          setBefore: '301', setAfter: '101', commitBefore: '301', commitAfter: '101', argument: '201', getFailure: '201', undefined: '401',
          notInitialized: '0', readOnly: '403', writeOnly: '404', type: '405', range: '405' };
    var texts = {
      '0': 'No error', '101': 'General exception', '103': 'Already initialized', '104': 'Content instance terminated',
      '112': 'Termination before initialization', '113': 'Termination after termination', '122': 'Retrieve data before initialization',
      '123': 'Retrieve data after termination', '132': 'Store data before initialization', '133': 'Store data after termination',
      '142': 'Commit before initialization', '143': 'Commit after termination', '201': v2004 ? 'General argument error' : 'Invalid argument error',
      '202': 'Element cannot have children', '203': 'Element not an array', '301': v2004 ? 'General get failure' : 'Not initialized',
      '401': v2004 ? 'Undefined data model element' : 'Not implemented error', '403': v2004 ? 'Data model element value not initialized' : 'Element is read only',
      '404': v2004 ? 'Data model element is read only' : 'Element is write only', '405': v2004 ? 'Data model element is write only' : 'Incorrect data type',
      '406': 'Data model element type mismatch', '407': 'Data model element value out of range',
    };
    function fail(code, result) { lastError = code; return result; }
    function ok(result) { lastError = '0'; return result; }

    // What the LMS decides from the mastery score: SCORM 1.2 turns a
    // "completed" with a raw score into passed or failed; SCORM 2004 judges
    // success from the scaled score against the scaled passing score.
    function judge() {
      if (mastery === null) return;
      if (!v2004 && cmi['cmi.core.lesson_status'] === 'completed' && cmi['cmi.core.score.raw'] !== undefined) {
        cmi['cmi.core.lesson_status'] = Number(cmi['cmi.core.score.raw']) >= mastery ? 'passed' : 'failed';
      }
      if (v2004 && cmi['cmi.score.scaled'] !== undefined) {
        cmi['cmi.success_status'] = Number(cmi['cmi.score.scaled']) * 100 >= mastery ? 'passed' : 'failed';
      }
    }

    function begin(arg) {
      if (arg !== '' && arg !== undefined && arg !== null) return fail(codes.argument, 'false');
      if (state === 'running') return fail(codes.already, 'false');
      if (state === 'terminated') return fail(codes.terminated, 'false');
      state = 'running';
      if (!v2004 && !cmi['cmi.core.lesson_status']) cmi['cmi.core.lesson_status'] = 'not attempted';
      return ok('true');
    }
    function end(arg) {
      if (arg !== '' && arg !== undefined && arg !== null) return fail(codes.argument, 'false');
      if (state === 'new') return fail(codes.termBefore, 'false');
      if (state === 'terminated') return fail(codes.termAfter, 'false');
      judge();
      state = 'terminated';
      send('finish');
      return ok('true');
    }
    function commit(arg) {
      if (arg !== '' && arg !== undefined && arg !== null) return fail(codes.argument, 'false');
      if (state === 'new') return fail(codes.commitBefore, 'false');
      if (state === 'terminated') return fail(codes.commitAfter, 'false');
      judge();
      send('commit');
      return ok('true');
    }
    function get(name) {
      if (state === 'new') return fail(codes.getBefore, '');
      if (state === 'terminated') return fail(codes.getAfter, '');
      name = String(name === undefined || name === null ? '' : name);
      if (name === '') return fail(codes.getFailure, '');
      var element = lookup(model, name);
      if (!element) return fail(/\._(children|count)$/.test(name) ? (v2004 ? '301' : '202') : codes.undefined, '');
      if (element.access === 'w') return fail(codes.writeOnly, '');
      if (typeof element.rule === 'string') return ok(element.rule);
      if (element.rule === null) return fail(v2004 ? codes.notInitialized : '0', '');
      if (v2004 && name === 'cmi.success_status' && cmi[name] === undefined) return ok('unknown');
      if (v2004 && name === 'cmi.completion_status' && cmi[name] === undefined) return ok('unknown');
      if (cmi[name] === undefined) return v2004 ? fail(codes.notInitialized, '') : ok('');
      return ok(cmi[name]);
    }
    function set(name, value) {
      if (state === 'new') return fail(codes.setBefore, 'false');
      if (state === 'terminated') return fail(codes.setAfter, 'false');
      name = String(name === undefined || name === null ? '' : name);
      value = String(value === undefined || value === null ? '' : value);
      if (name === '') return fail(v2004 ? '351' : codes.argument, 'false');
      var element = lookup(model, name);
      if (!element) return fail(codes.undefined, 'false');
      if (element.access === 'r') return fail(codes.readOnly, 'false');
      if (element.collection && element.index > countOf(element.collection)) return fail(v2004 ? '351' : codes.argument, 'false');
      var problem = element.rule(value);
      if (problem) return fail(problem === 'range' ? codes.range : codes.type, 'false');
      cmi[name] = value;
      return ok('true');
    }
    function errorString(code) { return texts[String(code)] || ''; }
    if (v2004) {
      return {
        Initialize: begin, Terminate: end, GetValue: get, SetValue: set, Commit: commit,
        GetLastError: function () { return lastError; }, GetErrorString: errorString,
        GetDiagnostic: function (code) { return errorString(code === undefined || code === '' ? lastError : code); },
        version: '1.0',
      };
    }
    return {
      LMSInitialize: begin, LMSFinish: end, LMSGetValue: get, LMSSetValue: set, LMSCommit: commit,
      LMSGetLastError: function () { return lastError; }, LMSGetErrorString: errorString,
      LMSGetDiagnostic: function (code) { return errorString(code === undefined || code === '' ? lastError : code); },
    };
  }

  window.API = runtime('1.2');
  window.API_1484_11 = runtime('2004');
  window.__svcScorm = { version: init.v || null };
})();
