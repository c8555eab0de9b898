import assert from 'node:assert/strict';
import { test } from 'node:test';
import { basicPassword } from '../../src/protocols/index.js';

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

test('basicPassword: the password of a Basic header, whatever the user name, colons in it kept', () => {
  assert.equal(basicPassword(basic('operator:s3cret')), 's3cret');
  assert.equal(basicPassword(basic(':s3cret')), 's3cret');
  assert.equal(basicPassword(basic('u:pa:ss')), 'pa:ss');
  assert.equal(basicPassword(`basic   ${Buffer.from('u:k').toString('base64')}  `), 'k');
});

test('basicPassword: nothing from other schemes, missing headers or credentials without a colon', () => {
  assert.equal(basicPassword(undefined), undefined);
  assert.equal(basicPassword('Bearer abc'), undefined);
  assert.equal(basicPassword(basic('no-colon')), undefined);
  assert.equal(basicPassword('Basic !!!'), undefined);
});
