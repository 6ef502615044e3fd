import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  applyConfigPatch,
  buildConfigOptions,
  buildModeState,
  validateConfigValue,
  withConfigValue,
} from '../../../../bridge/translate/config.ts';
import { SessionSettings } from '../../../../bridge/zcode/protocol.ts';
import { assertValidSessionUpdate, validateAcp, validateOutgoing } from '../../../helpers/acpSchema.ts';

/** `session/read` settings as seed builds send them. */
const settings = SessionSettings.parse({
  mode: { current: 'build' },
  model: { current: { modelId: 'GLM-5.2' }, available: [{ modelId: 'GLM-5.2', displayName: 'GLM 5.2' }, { modelId: 'GLM-5.1' }] },
  thoughtLevel: { current: 'high' },
});

function validOptions(options: unknown[]): void {
  validateOutgoing('session/set_config_option', { configOptions: options }, 'response');
  assertValidSessionUpdate({ sessionUpdate: 'config_option_update', configOptions: options });
}

describe('buildConfigOptions', () => {
  test('mode, model and thought level with current values; defaults where zcode lists none', () => {
    const options = buildConfigOptions(settings);
    validOptions(options);
    assert.deepEqual(options, [
      {
        id: 'mode',
        name: 'Mode',
        description: 'How much zcode may do without asking',
        category: 'mode',
        type: 'select',
        currentValue: 'build',
        options: [
          { value: 'plan', name: 'Plan', description: 'Explore read-only and propose a plan for your approval before changing anything' },
          { value: 'build', name: 'Build', description: 'Edit files and run commands, asking before risky actions' },
          { value: 'edit', name: 'Edit', description: 'Apply file edits without asking; still asks before running commands' },
          { value: 'yolo', name: 'YOLO', description: 'Run every tool without asking for permission' },
        ],
      },
      {
        id: 'model',
        name: 'Model',
        category: 'model',
        type: 'select',
        currentValue: 'GLM-5.2',
        options: [
          { value: 'GLM-5.2', name: 'GLM 5.2' },
          { value: 'GLM-5.1', name: 'GLM-5.1' },
        ],
      },
      {
        id: 'thought_level',
        name: 'Thought level',
        description: 'How much the model reasons before answering',
        category: 'thought_level',
        type: 'select',
        currentValue: 'high',
        options: [
          { value: 'low', name: 'Low', description: 'Fast answers with little reasoning' },
          { value: 'medium', name: 'Medium', description: 'Balanced reasoning' },
          { value: 'high', name: 'High', description: 'Deeper reasoning for harder tasks' },
          { value: 'max', name: 'Max', description: 'The most reasoning the model allows' },
        ],
      },
    ]);
  });

  test('nothing known: fallbacks, no model option; zcode lists and unlisted currents are honoured', () => {
    const bare = buildConfigOptions(undefined, { mode: 'yolo' });
    validOptions(bare);
    assert.deepEqual(bare.map((o) => [o.id, o.currentValue]), [['mode', 'yolo'], ['thought_level', 'high']]);

    const listed = buildConfigOptions(SessionSettings.parse({ mode: { current: 'auto', available: ['plan', 'guarded', 'auto'] }, thoughtLevel: { current: 'ultra' } }), {
      model: 'GLM-4.6',
    });
    validOptions(listed);
    assert.deepEqual(listed[0].type === 'select' && listed[0].options, [
      { value: 'plan', name: 'Plan', description: 'Explore read-only and propose a plan for your approval before changing anything' },
      { value: 'guarded', name: 'Guarded', description: "zcode's guarded mode (desktop 3.15 and later): more careful about what runs without asking" },
      { value: 'auto', name: 'Auto', description: 'Let zcode decide when to ask' },
    ]);
    assert.deepEqual(listed.map((o) => [o.id, o.currentValue]), [['mode', 'auto'], ['model', 'GLM-4.6'], ['thought_level', 'ultra']]);
    const level = listed[2];
    assert.ok(level.type === 'select' && level.options.some((o) => 'value' in o && o.value === 'ultra'));
  });

  test("the build's modes (zcode/buildModes.ts) are offered where zcode's settings list none; zcode's own list wins", () => {
    const withGuarded = buildConfigOptions(SessionSettings.parse({ mode: { current: 'build' } }), { modes: ['plan', 'build', 'edit', 'yolo', 'guarded'] });
    validOptions(withGuarded);
    assert.deepEqual(withGuarded[0].type === 'select' && withGuarded[0].options.map((o) => ('value' in o ? o.value : '')), ['plan', 'build', 'edit', 'yolo', 'guarded']);
    const listed = buildConfigOptions(SessionSettings.parse({ mode: { current: 'plan', available: ['plan', 'build'] } }), { modes: ['plan', 'build', 'edit', 'yolo', 'guarded'] });
    assert.deepEqual(listed[0].type === 'select' && listed[0].options.map((o) => ('value' in o ? o.value : '')), ['plan', 'build']);
  });
});

describe('mode state, validation and patches', () => {
  test('buildModeState mirrors the mode option', () => {
    const state = buildModeState(buildConfigOptions(settings));
    assert.ok(state);
    validateAcp('SessionModeState', state);
    assert.equal(state.currentModeId, 'build');
    assert.deepEqual(state.availableModes.map((m) => m.id), ['plan', 'build', 'edit', 'yolo']);
    assert.equal(buildModeState([]), undefined);
  });

  test('validateConfigValue: unknown id, wrong type, value not offered', () => {
    const options = buildConfigOptions(settings);
    assert.equal(validateConfigValue(options, 'mode', 'plan'), undefined);
    assert.equal(validateConfigValue(options, 'model', 'GLM-5.1'), undefined);
    assert.equal(validateConfigValue(options, 'speed', 'fast'), "Unknown config option 'speed'. Known options: mode, model, thought_level");
    assert.equal(validateConfigValue(options, 'mode', true), "Config option 'mode' takes a string value");
    assert.equal(validateConfigValue(options, 'thought_level', 'extreme'), "Invalid value 'extreme' for 'thought_level'. Expected one of: low, medium, high, max");
  });

  test('withConfigValue / applyConfigPatch: immutable, same array when nothing changes', () => {
    const options = buildConfigOptions(settings);
    assert.equal(withConfigValue(options, 'mode', 'build'), options);
    assert.equal(applyConfigPatch(options, {}), options);
    assert.equal(applyConfigPatch(options, { mode: 'build', thoughtLevel: 'high' }), options);

    const next = applyConfigPatch(options, { mode: 'plan', model: 'GLM-6', thoughtLevel: 'max' });
    validOptions(next);
    assert.notEqual(next, options);
    assert.equal(options[0].currentValue, 'build');
    assert.deepEqual(next.map((o) => o.currentValue), ['plan', 'GLM-6', 'max']);
    // a model zcode reports but did not list is added so the client can show it
    assert.ok(next[1].type === 'select' && next[1].options.some((o) => 'value' in o && o.value === 'GLM-6'));

    // a model reported when no model option exists yet adds one after mode
    const added = applyConfigPatch(buildConfigOptions(undefined), { model: 'GLM-5.2' });
    validOptions(added);
    assert.deepEqual(added.map((o) => o.id), ['mode', 'model', 'thought_level']);
  });
});
