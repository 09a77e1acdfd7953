#!/usr/bin/env node
'use strict';
require('./launch').launch('metrics-server');
