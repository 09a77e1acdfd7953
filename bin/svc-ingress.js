#!/usr/bin/env node
'use strict';
require('./launch').launch('ingress');
