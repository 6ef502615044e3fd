// The first-hour checks (firstHour.e2e.mjs) with VS Code in English.
import { firstHourSuite } from './firstHour.e2e.mjs';

firstHourSuite({ locale: 'en' });
