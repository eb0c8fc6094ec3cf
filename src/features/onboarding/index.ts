export { Tour } from './Tour';
export { SurveyPrompt } from './SurveyPrompt';
