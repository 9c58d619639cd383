/** The shift view at 1280×800 (support/shift-view.ts): the prompt answered from the banner, the job followed on the list. */
import { DESKTOP } from '../support/browser.ts';
import { describeShiftView } from '../support/shift-view.ts';

describeShiftView(DESKTOP);
